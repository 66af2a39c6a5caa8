/**
 * The contract checks' figures as `bun run fuzz` prints them: a row per operation (positive: sent,
 * not refused, refused but explained, refused unexplained; negative: sent, answered 4xx, not 4xx but
 * explained, not 4xx unexplained; generated values the document refused), then the totals.
 */
import type { CheckCounts, ContractFigures } from "./contract-check.ts";

/** sent, answered as the check wants, against it but explained, against it unexplained. */
const cells = (c: CheckCounts, agreed: number) =>
  [c.sent, agreed, c.explained, c.disagreements].map((n) => String(n).padStart(6));

export function contractReport(f: ContractFigures): string {
  const width = Math.max(...Object.keys(f.perOperation).map((k) => k.length));
  const head = `${"operation".padEnd(width)}  positive:  sent  !refd  expl  disag | negative:  sent   4xx  expl  disag | misses`;
  const rows = Object.entries(f.perOperation).map(([op, e]) => {
    const positive = cells(e.positive, e.positive.accepted);
    const negative = cells(e.negative, e.negative.rejected);
    const note = e.noMutation ? `  (no negative: ${e.noMutation})` : "";
    return `${op.padEnd(width)}  ${positive.join("")} | ${negative.join("")} | ${String(e.generatorMisses).padStart(6)}${note}`;
  });
  const t = f.totals;
  const statuses = (check: "positive" | "negative") => {
    const all: Record<string, number> = {};
    for (const e of Object.values(f.perOperation))
      for (const [status, n] of Object.entries(e.statuses[check])) all[status] = (all[status] ?? 0) + n;
    return Object.entries(all)
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ");
  };
  const explained = Object.entries(f.explained).map(([why, n]) => `    ${String(n).padStart(5)}  ${why}`);
  const disagreements = Object.entries(f.disagreements).map(
    ([key, d]) => `  DISAGREEMENT ${d.count}× ${key}\n    ${d.example}`,
  );
  return [
    `contract checks (${Object.keys(f.perOperation).length} operations):`,
    head,
    ...rows,
    `  positive: ${t.positive.sent} sent, ${t.positive.accepted} not refused, ${t.positive.explained} refused as explained, ${t.positive.disagreements} disagreements`,
    `  negative: ${t.negative.sent} sent, ${t.negative.rejected} answered 4xx, ${t.negative.explained} explained, ${t.negative.disagreements} disagreements`,
    `  positive answers by status: ${statuses("positive")}`,
    `  negative answers by status: ${statuses("negative")}`,
    `  generated values the document refused (dropped): ${t.generatorMisses}`,
    "  explained:",
    ...explained,
    ...disagreements,
  ].join("\n");
}
