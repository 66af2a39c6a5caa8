import { describe, expect, test } from "bun:test";
import { BadRequest } from "../../../src/errors/domain-errors.ts";
import {
  at,
  defineSource,
  jsonReply,
  NOTHING_WRITTEN,
  need,
  type SourceDefinition,
  textAt,
} from "../../../src/sources/kit/define-source.ts";
import { tokenScheme } from "../../../src/sources/kit/signature.ts";
import { context, onlyDraft, request } from "../support.ts";

const base: SourceDefinition = {
  id: "toy",
  secrets: ["TOY_TOKEN"],
  verify: tokenScheme({ secret: "TOY_TOKEN" }),
  eventId: (ev) => ev.id,
  eventType: (ev) => ev.kind,
  mappings: {
    note: {
      category: "fact",
      // `text` is checked by need() in the content: the computed-value path of the kit.
      required: [],
      content: (ev) => `Note: ${need(textAt(ev, "text"), "text")}`,
      tags: ["note"],
      data: (ev) => ({ author: textAt(ev, "who") }),
      validFrom: (ev) => ev.at,
    },
    plan: {
      category: "decision",
      required: [],
      content: (ev) => `Plan ${textAt(ev, "ref")}`,
      fields: () => ({ stage: "approved" }),
      object: (ev) => ev.ref,
    },
    done: {
      category: "outcome",
      required: [],
      content: (ev) => `Done ${textAt(ev, "ref")}`,
      fields: () => ({ result: "success", amount: 12.5, currency: "EUR" }),
      object: (ev) => ev.ref,
    },
  },
};
const ctx = context({ TOY_TOKEN: "t" });

describe("defineSource: events and ids", () => {
  test("an object is one event, an array many; ids and types come from the definition", () => {
    const source = defineSource(base);
    const one = source.parse(request('{"id": "e1", "kind": "note", "text": "hi"}'), ctx);
    expect(one).toEqual([
      { event_id: "e1", event_type: "note", payload: { id: "e1", kind: "note", text: "hi" } },
    ]);
    const many = source.parse(request('[{"id": "a", "kind": "note"}, {"id": "b", "kind": "plan"}]'), ctx);
    expect(many.map((e) => [e.event_id, e.event_type])).toEqual([
      ["a", "note"],
      ["b", "plan"],
    ]);
  });

  test("without a platform id, the event's content hash: identical redeliveries get the same id", () => {
    const source = defineSource(base);
    const first = source.parse(request('{"kind": "note", "text": "x"}'), ctx)[0]!;
    const again = source.parse(request('{"kind": "note", "text": "x"}'), ctx)[0]!;
    const other = source.parse(request('{"kind": "note", "text": "y"}'), ctx)[0]!;
    expect(first.event_id).toMatch(/^note:[0-9a-f]{32}$/);
    expect(again.event_id).toBe(first.event_id);
    expect(other.event_id).not.toBe(first.event_id);
  });

  test("events that are not objects, or too many of them, are a bad request", () => {
    const source = defineSource(base);
    expect(() => source.parse(request("[1, 2]"), ctx)).toThrow(BadRequest);
    expect(() => source.parse(request('"text"'), ctx)).toThrow(BadRequest);
    const tooMany = JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ id: String(i), kind: "note" })));
    expect(() => source.parse(request(tooMany), ctx)).toThrow(BadRequest);
  });

  test("form and optional JSON bodies", () => {
    const form = defineSource({ ...base, body: "form" });
    expect(form.parse(request("id=f1&kind=note&text=a+b"), ctx)[0]!.payload).toEqual({
      id: "f1",
      kind: "note",
      text: "a b",
    });
    const optional = defineSource({
      ...base,
      body: "optional-json",
      events: (body) => [body ?? { kind: "none" }],
    });
    expect(optional.parse(request(""), ctx)[0]!.event_type).toBe("none");
  });
});

describe("defineSource: mapping", () => {
  test("a covered type becomes a draft that passes its category's schema", () => {
    const source = defineSource(base);
    const [event] = source.parse(
      request('{"id": "e1", "kind": "note", "text": "hello", "who": "ada", "at": 1763719200}'),
      ctx,
    );
    const { draft } = onlyDraft(source.map(event!, ctx));
    expect(draft).toMatchObject({
      category: "fact",
      content: "Note: hello",
      tags: ["toy", "note"],
      data: { author: "ada" },
      valid_from: "2025-11-21T10:00:00.000Z",
      source: { system: "toy", event_id: "e1", event_type: "note" },
    });
  });

  test("a type with no row is ignored, never dead-lettered; Object.prototype names are no rows", () => {
    const source = defineSource(base);
    for (const kind of ["other", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const [event] = source.parse(request(JSON.stringify({ id: kind, kind })), ctx);
      expect(source.map(event!, ctx)).toEqual({ ok: true, drafts: [], ignored: true });
    }
  });

  test("a mapping missing what it needs dead-letters the event as missing_field", () => {
    const source = defineSource(base);
    const [event] = source.parse(request('{"id": "e1", "kind": "note"}'), ctx);
    expect(source.map(event!, ctx)).toEqual({ ok: false, reason: "missing_field", detail: "text" });
  });

  test("decisions carry their object key; outcomes name the object whose decision they resolve", () => {
    const source = defineSource(base);
    const [plan, done] = source.parse(
      request('[{"id": "1", "kind": "plan", "ref": "R-7"}, {"id": "2", "kind": "done", "ref": "R-7"}]'),
      ctx,
    );
    expect(onlyDraft(source.map(plan!, ctx)).object_key).toBe("toy:R-7");
    const outcome = source.map(done!, ctx);
    expect(outcome.ok && outcome.drafts[0]).toMatchObject({
      outcome_of: "toy:R-7",
      draft: { result: "success" },
    });
  });

  test("a row function keys the table by a class of types", () => {
    const source = defineSource({ ...base, row: (type) => (type.endsWith(".note") ? "note" : undefined) });
    const [event] = source.parse(request('{"id": "1", "kind": "any.note", "text": "t"}'), ctx);
    expect(onlyDraft(source.map(event!, ctx)).draft.source?.event_type).toBe("any.note");
  });
});

describe("defineSource: handshakes", () => {
  test("the handshake sees the parsed body, read once per request", () => {
    let reads = 0;
    const source = defineSource({
      ...base,
      events: (body) => {
        reads++;
        return [body];
      },
      handshake: (_req, body) => (at(body, "kind") === "ping" ? jsonReply(NOTHING_WRITTEN) : undefined),
    });
    const req = request('{"id": "p", "kind": "ping"}');
    source.parse(req, ctx);
    expect(source.handshake?.(req, ctx)).toEqual({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(NOTHING_WRITTEN),
    });
    expect(reads).toBe(1);
    expect(source.handshake?.(request('{"id": "n", "kind": "note"}'), ctx)).toBeUndefined();
  });
});

describe("at / textAt", () => {
  test("paths through objects and array indexes; hostile shapes give undefined", () => {
    const v = { a: { b: [{ c: " x " }] }, n: 5 };
    expect(at(v, "a.b.0.c")).toBe(" x ");
    expect(textAt(v, "a.b.0.c")).toBe("x");
    expect(textAt(v, "n")).toBe("5");
    expect(at(v, "a.b.1.c")).toBeUndefined();
    expect(at(v, "a.__proto__")).toBeUndefined();
    expect(at(null, "a")).toBeUndefined();
    expect(at("str", "length")).toBeUndefined();
  });
});
