/**
 * Every mapping of the eighteen declared sources, checked against its own `required` list: an
 * event holding only the required fields maps to a valid entry whose text has no hole in it (so
 * what a mapping reads as present is declared), and taking any one required field away, or
 * blanking it, or putting a placeholder in its place, dead-letters the event naming that field.
 */
import { describe, expect, test } from "bun:test";
import { analyticsSource } from "../../src/sources/analytics.ts";
import { calendarSource } from "../../src/sources/calendar.ts";
import { codeHostSource } from "../../src/sources/code-host.ts";
import { esignSource } from "../../src/sources/esign.ts";
import { formsSource } from "../../src/sources/forms.ts";
import { helpdeskSource } from "../../src/sources/helpdesk.ts";
import { incidentsSource } from "../../src/sources/incidents.ts";
import { issueTrackerSource } from "../../src/sources/issue-tracker.ts";
import type { DefinedSource } from "../../src/sources/kit/define-source.ts";
import type { FieldRule, Required } from "../../src/sources/kit/required.ts";
import { meetingsSource } from "../../src/sources/meetings.ts";
import { officeGraphSource } from "../../src/sources/office-graph.ts";
import { paymentsSource } from "../../src/sources/payments.ts";
import { projectTrackerSource } from "../../src/sources/project-tracker.ts";
import { SOURCE_IDS } from "../../src/sources/registry.ts";
import { schedulingSource } from "../../src/sources/scheduling.ts";
import { standardSource } from "../../src/sources/standard.ts";
import { storefrontSource } from "../../src/sources/storefront.ts";
import { supportChatSource } from "../../src/sources/support-chat.ts";
import { telephonySource } from "../../src/sources/telephony.ts";
import { warehouseSource } from "../../src/sources/warehouse.ts";
import { context, onlyDraft } from "./support.ts";

const DECLARED: readonly DefinedSource[] = [
  paymentsSource,
  codeHostSource,
  storefrontSource,
  helpdeskSource,
  issueTrackerSource,
  projectTrackerSource,
  supportChatSource,
  telephonySource,
  meetingsSource,
  incidentsSource,
  schedulingSource,
  formsSource,
  esignSource,
  officeGraphSource,
  analyticsSource,
  warehouseSource,
  standardSource,
  calendarSource,
];

/** Where a table is keyed by a class of types, an event type of each row. */
const TYPE_OF_ROW: Record<string, Record<string, string>> = {
  analytics: { order_completed: "track:Order Completed", track: "track:Signed Up" },
  standard: { failed: "export.failed", completed: "import.completed", other: "user.created" },
};

/** Values a category's schema constrains (an outcome's result is one of a few words). */
const VALUE_OF: Record<string, unknown> = { result: "success" };

const ctx = context({});

const rule = (r: Required): FieldRule => (typeof r === "string" ? { anyOf: [r] } : r);

/** Sets `a.b.0.c` in `target`, making records and lists (for digit keys) on the way. */
function put(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node: Record<string, unknown> | unknown[] = target;
  keys.forEach((key, i) => {
    const last = i === keys.length - 1;
    const slot = node as Record<string, unknown>;
    if (last) slot[key] = value;
    else {
      slot[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {};
      node = slot[key] as Record<string, unknown>;
    }
  });
}

/** An event holding only the first alternative of each rule, with a value of the rule's kind. */
function minimalEvent(rules: readonly Required[]): Record<string, unknown> {
  const ev: Record<string, unknown> = {};
  rules.forEach((r, i) => {
    const {
      anyOf: [path],
      kind,
    } = rule(r);
    const last = path!.split(".").at(-1)!;
    const value = kind === "contents" ? { note: `v${i}` } : (VALUE_OF[last] ?? `v${i}`);
    put(ev, path!, value);
  });
  return ev;
}

function map(source: DefinedSource, row: string, payload: unknown) {
  const type = TYPE_OF_ROW[source.id]?.[row] ?? row;
  return source.map({ event_id: "e-1", event_type: type, payload }, ctx);
}

const cases = DECLARED.flatMap((source) =>
  Object.entries(source.mappings).map(([row, mapping]) => ({ source, row, mapping })),
);

test("the eighteen declared sources are those of the registry besides the four written by hand", () => {
  const byHand = ["crm", "mail", "data", "marketing_crm"];
  expect(DECLARED.map((s) => s.id).sort()).toEqual(SOURCE_IDS.filter((id) => !byHand.includes(id)).sort());
});

describe.each(cases.map((c) => [`${c.source.id} ${c.row}`, c] as const))("%s", (_name, c) => {
  const { source, row, mapping } = c;

  test("declares what it is built from", () => {
    expect(mapping.required.length).toBeGreaterThan(0);
  });

  test("maps an event holding only its required fields to a valid entry with no hole in its text", () => {
    const result = map(source, row, minimalEvent(mapping.required));
    // An outcome is linked to its decision by the tenant: checked here as if one were found.
    const linked =
      result.ok && mapping.category === "outcome"
        ? {
            ...result,
            drafts: result.drafts.map((d) => ({ ...d, draft: { ...d.draft, decision_id: "0a1b2c3d" } })),
          }
        : result;
    const { draft } = onlyDraft(linked as typeof result);
    expect(draft.category).toBe(mapping.category);
    for (const hole of [
      "undefined",
      "null",
      "NaN",
      "[object Object]",
      '""',
      "()",
      "  ",
      " ?",
      "?)",
      " .",
      " ,",
    ])
      expect({ content: draft.content, hole, found: draft.content.includes(hole) }).toMatchObject({
        found: false,
      });
    expect(draft.content).not.toMatch(/[:,;] *$/);
  });

  test("without any one required field, or with it blank or a placeholder, the event is dead-lettered naming it", () => {
    mapping.required.forEach((r, i) => {
      const { anyOf: paths, kind } = rule(r);
      const named = paths.join(" or ");
      const emptied =
        kind === "text" ? ["   "] : kind === "contents" ? [{}, []] : ["", "  ", "?", "unknown", "n/a"];
      const variants: unknown[] = [undefined, ...emptied];
      for (const value of variants) {
        const ev = minimalEvent(mapping.required);
        // Every alternative of the rule taken away (or emptied): nothing else can stand in.
        for (const path of paths) put(ev, path, value);
        const result = map(source, row, ev);
        expect({ rule: i, value, result }).toEqual({
          rule: i,
          value,
          result: { ok: false, reason: "missing_field", detail: named },
        });
      }
    });
  });
});
