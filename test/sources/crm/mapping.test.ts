import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fillTemplate, loadCrmMapping, parseCrmMapping } from "../../../src/sources/crm/mapping.ts";

const dir = mkdtempSync(join(tmpdir(), "crm-mapping-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = {
  version: 1,
  events: {
    Order__c: { category: "fact", content: "Order {Order_Number__c} shipped", tags: ["orders"], fields: {} },
    Escalation__c: { category: "exception", content: "Escalation {Name}", fields: { severity: "high" } },
  },
};

function faultOf(file: unknown): string {
  try {
    parseCrmMapping(typeof file === "string" ? file : JSON.stringify(file), "/etc/memory/crm-mapping.json");
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a fault");
}

describe("CRM mapping file", () => {
  test("a valid file loads from disk", () => {
    const path = join(dir, "good.json");
    writeFileSync(path, JSON.stringify(GOOD));
    expect(loadCrmMapping(path)).toEqual(GOOD as never);
  });

  test("a missing file names the path and carries the errno code", () => {
    const path = join(dir, "absent.json");
    let caught: (Error & { code?: string }) | undefined;
    try {
      loadCrmMapping(path);
    } catch (err) {
      caught = err as Error & { code?: string };
    }
    expect(caught?.message).toContain(path);
    expect(caught?.code).toBe("ENOENT");
  });

  test("every fault is named with the path", () => {
    const cases: [unknown, RegExp][] = [
      ["{not json", /not valid JSON/],
      [{ version: 2, events: {} }, /\/version/],
      [{ version: 1 }, /events/],
      [{ version: 1, events: {}, extra: true }, /extra|Unexpected property/],
      [
        { version: 1, events: { A: { category: "memo", content: "x" } } },
        /\/events\/A\/category must be one of decision, exception/,
      ],
      [{ version: 1, events: { A: { category: "fact", content: "" } } }, /\/events\/A\/content/],
      [
        { version: 1, events: { A: { category: "fact", content: "x", fields: { severity: "high" } } } },
        /severity is not a field of category fact/,
      ],
      [
        {
          version: 1,
          events: { A: { category: "relationship", content: "x", fields: { subject: "s", predicate: "p" } } },
        },
        /object is required for category relationship/,
      ],
      [
        { version: 1, events: { A: { category: "outcome", content: "x", fields: { result: "success" } } } },
        /decision_id is required/,
      ],
      [{ version: 1, events: { A: { category: "fact", content: "x", tags: [""] } } }, /\/events\/A\/tags\/0/],
    ];
    for (const [file, pattern] of cases) {
      const message = faultOf(file);
      expect(message).toContain("/etc/memory/crm-mapping.json");
      expect(message).toMatch(pattern);
    }
  });

  test("placeholders: filled from the lookup, the first missing one reported", () => {
    const lookup = (name: string) => ({ A: "1", "B.C": "two" })[name];
    expect(fillTemplate("{A} and {B.C} and {A}", lookup)).toEqual({ ok: true, value: "1 and two and 1" });
    expect(fillTemplate("{A} {Missing} {Other}", lookup)).toEqual({ ok: false, missing: "Missing" });
    expect(fillTemplate("no {placeholders} here {", () => "x")).toEqual({ ok: true, value: "no x here {" });
  });
});
