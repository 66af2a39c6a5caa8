/**
 * Lifecycles through the real route (docs/source-mappings.md, "Lifecycles"): each closing event a
 * source maps, signed as its platform signs it, ends or resolves the entries it closes, by object
 * key, in either delivery order (the platform's event time decides, not the arrival).
 */
import { describe, expect, test } from "bun:test";
import type { Category } from "../../src/models/category.ts";
import { type EntryView, readEntry } from "../helpers/webhooks.ts";
import type { SpecContext } from "./conformance.ts";

/** What the closing event does to an entry written before it. */
export type Closed = "ended" | "resolved" | "ended and resolved";

export interface LifecycleSample {
  /** The closing event, as the test names it ("ticket solved"). */
  name: string;
  /** Events about the same object before it: each one's entry, and what the closing event does to it. */
  before: Array<{ body(): string; category: Category; closed: Closed }>;
  closing: { body(): string; category: Category };
}

export function describeLifecycles(ctx: SpecContext, samples: readonly LifecycleSample[]): void {
  const written = async (tenantId: string, body: string): Promise<string> => {
    const summary = await ctx.deliver(tenantId, body);
    expect(summary).toMatchObject({ accepted: 1, dead_lettered: [] });
    return summary.entries.at(-1)!;
  };

  /** Delivers the events in `order` (indexes into before, then the closing event last); reads them back. */
  const played = async (sample: LifecycleSample, closingFirst: boolean) => {
    const t = await ctx.tenant();
    const bodies = sample.before.map((b) => b.body());
    const closingBody = sample.closing.body();
    const ids: string[] = [];
    let closingId = closingFirst ? await written(t.tenant_id, closingBody) : "";
    for (const body of closingFirst ? [...bodies].reverse() : bodies)
      ids.push(await written(t.tenant_id, body));
    if (closingFirst) ids.reverse();
    else closingId = await written(t.tenant_id, closingBody);
    const token = t.token;
    const closing = await readEntry(ctx.harness(), token, sample.closing.category, closingId);
    const entries: EntryView[] = [];
    for (const [i, id] of ids.entries())
      entries.push(await readEntry(ctx.harness(), token, sample.before[i]!.category, id));
    return { closing, entries };
  };

  const check = (sample: LifecycleSample, closing: EntryView, entries: EntryView[]) => {
    // The closing entry is the object's last state: nothing valid after it ends it.
    expect(closing.valid_to).toBeNull();
    if (closing.category === "decision" || closing.category === "exception")
      expect(closing.status).toBe("resolved");
    for (const [i, entry] of entries.entries()) {
      const { closed } = sample.before[i]!;
      const what = { event: i, category: entry.category };
      if (closed !== "resolved")
        expect({ ...what, valid_to: entry.valid_to }).toEqual({ ...what, valid_to: closing.valid_from });
      if (closed !== "ended")
        expect({ ...what, status: entry.status }).toEqual({ ...what, status: "resolved" });
    }
  };

  describe("lifecycles: closing events close what they end", () => {
    for (const sample of samples) {
      test(`${sample.name} closes the entries of its object`, async () => {
        const { closing, entries } = await played(sample, false);
        check(sample, closing, entries);
      });

      test(`${sample.name}, delivered before the events it closes, closes them as they arrive`, async () => {
        const { closing, entries } = await played(sample, true);
        check(sample, closing, entries);
      });
    }
  });
}

/** The JSON body with one field (a dotted path) set: an event of the same shape at another time. */
export function withField(body: string, path: string, value: unknown): string {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const keys = path.split(".");
  let node = parsed;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
  return JSON.stringify(parsed);
}
