import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Entry } from "../../../../src/models/entry.ts";
import { EntityIndex } from "../../../../src/search/controls/entities/entity-index.ts";
import { entryMentions } from "../../../../src/search/controls/entities/entry-mentions.ts";
import {
  entityKey,
  identifiersIn,
  MAX_ENTITY_CHARS,
  mentionsIn,
} from "../../../../src/search/controls/entities/recognise.ts";

/** The deterministic entity recogniser (docs/entities.md) and the index built on it. */

const found = (text: string) => mentionsIn(text).map((m) => [m.text, m.kind, m.strong]);

describe("names", () => {
  test("capitalised runs mid-sentence are strong names; a sentence's first word is weak", () => {
    expect(found("Jamal: I left Summit Software and joined Stonebridge Accounting.")).toEqual([
      ["Jamal", "name", false],
      ["Summit Software", "name", true],
      ["Stonebridge Accounting", "name", true],
    ]);
  });

  test("honorifics make a person, suffixes an organisation, connectors stay inside", () => {
    expect(found("Yesterday Dr. Okafor met Acme Inc. at the Bank of America office in New York.")).toEqual([
      ["Okafor", "person", true],
      ["Acme", "organisation", true],
      ["Bank of America", "name", true],
      ["New York", "name", true],
    ]);
  });

  test("a possessive is dropped; function, calendar and opening words are no names", () => {
    expect(found("What did Zane's rabbit swallow on Monday in May? Thanks, I'm fine.")).toEqual([
      ["Zane", "name", true],
    ]);
    expect(found("The Who")).toEqual([]);
  });
});

describe("identifiers", () => {
  test("e-mails, domains, prefixed ids, codes and # numbers", () => {
    expect(
      identifiersIn("Mail ana@acme.io (see acme.io): cus_Nf2aXb9Q, invoice INV-0042, ticket #4821.").map(
        (m) => [m.text, m.kind],
      ),
    ).toEqual([
      ["ana@acme.io", "email"],
      ["acme.io", "domain"],
      ["cus_Nf2aXb9Q", "id"],
      ["INV-0042", "id"],
      ["#4821", "id"],
    ]);
  });

  test("numbers, versions and words with dots are not identifiers", () => {
    expect(identifiersIn("It costs 1.5 or 2,300 and v2.1 shipped; e.g. fine.")).toEqual([]);
  });
});

describe("properties", () => {
  const texts = fc.string({ maxLength: 400, unit: "grapheme" });

  test("total and deterministic: any text gives the same bounded mentions twice", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const once = mentionsIn(text);
        expect(mentionsIn(text)).toEqual(once);
        for (const m of once) {
          expect(m.text.length).toBeLessThanOrEqual(MAX_ENTITY_CHARS);
          expect(m.key).toBe(entityKey(m.text));
          expect(m.key.length).toBeGreaterThan(0);
        }
        expect(new Set(once.map((m) => m.key)).size).toBe(once.length);
      }),
    );
  });

  test("a name written mid-sentence is found whatever surrounds it", () => {
    const word = fc.stringMatching(/^[A-Z][a-z]{3,9}$/).filter((w) => !["The", "This", "That"].includes(w));
    fc.assert(
      fc.property(word, word, fc.constantFrom("met", "called", "paid", "wrote to"), (a, b, verb) => {
        const keys = mentionsIn(`Yesterday we ${verb} ${a} ${b} about it.`).map((m) => m.key);
        expect(keys).toContain(entityKey(`${a} ${b}`));
      }),
    );
  });

  test("keys ignore case, accents and spacing", () => {
    expect(entityKey("  Café  de   Flore ")).toBe("cafe de flore");
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z]{1,12}( [A-Za-z]{1,12}){0,3}$/), (name) => {
        expect(entityKey(name.toUpperCase())).toBe(entityKey(name.toLowerCase().replaceAll(" ", "  ")));
      }),
    );
  });
});

const entry = (id: string, fields: Partial<Entry>): Entry =>
  ({
    id,
    tenant_id: "t",
    category: "fact",
    content: "",
    valid_from: "2026-01-01T00:00:00.000Z",
    valid_to: null,
    agent_id: "a",
    recorded_at: "2026-01-01T00:00:00.000Z",
    expired_at: null,
    invalidated_at: null,
    created_by: "a",
    ...fields,
  }) as Entry;

describe("entries", () => {
  test("typed fields come first: relationship ends, data names, source-qualified object ids", () => {
    const rel = entryMentions(
      entry("r", {
        category: "relationship",
        content: "x",
        subject: "ana",
        predicate: "works at",
        object: "Acme",
      }),
    );
    expect(rel.map((m) => [m.key, m.strong])).toEqual([
      ["ana", true],
      ["acme", true],
    ]);
    const paid = entryMentions(
      entry("p", {
        content: "Payment succeeded.",
        source: { system: "payments" },
        data: { customer: "cus_123abc", customer_name: "Brightwave Logistics", customer_email: "ap@bw.io" },
      }),
    );
    // The content's first word is a weak mention: no entity until seen strong somewhere.
    expect(paid.map((m) => [m.key, m.strong])).toEqual([
      ["payments:cus_123abc", true],
      ["brightwave logistics", true],
      ["ap@bw.io", true],
      ["payment", false],
    ]);
  });
});

describe("the index", () => {
  test("a weak mention counts once the name is seen strong; removal undoes an entry", () => {
    const index = new EntityIndex();
    index.add(entry("a", { content: "Noodle learned to ring a bell." }));
    expect(index.known("noodle")).toBe(false);
    index.add(entry("b", { content: "My dog is called Noodle." }));
    expect([...index.entriesOf("noodle")]).toEqual(["a", "b"]);
    expect(index.ofQuery("what did noodle learn")).toEqual([]);
    expect(index.ofQuery("What did Noodle learn?")).toEqual(["noodle"]);
    index.remove("b");
    expect(index.known("noodle")).toBe(false);
    expect(index.size).toBe(1);
  });

  test("parts of a longer run are found where the name is known on its own", () => {
    const index = new EntityIndex();
    index.add(entry("c", { content: "x", data: { company: "Brightwave Logistics" } }));
    index.add(entry("d", { content: "Deal Brightwave Logistics Expansion moved to stage won." }));
    expect([...index.entriesOf("brightwave logistics")].sort()).toEqual(["c", "d"]);
    expect(index.ofQuery("what do we know about brightwave logistics")).toEqual(["brightwave logistics"]);
  });

  test("relationship edges both ways; an erased relationship leaves them", () => {
    const index = new EntityIndex();
    index.add(
      entry("r", {
        category: "relationship",
        content: "x",
        subject: "Ana",
        predicate: "runs",
        object: "Acme",
      }),
    );
    expect(index.relationsOf("acme")?.map((e) => [e.subject, e.predicate, e.object])).toEqual([
      ["ana", "runs", "acme"],
    ]);
    expect(index.relationsOf("ana")).toHaveLength(1);
    index.remove("r");
    expect(index.relationsOf("acme")).toBeUndefined();
    expect(index.known("acme")).toBe(false);
  });
});
