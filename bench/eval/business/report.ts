/** The business figures as Markdown: one table per kind, a row per system. */
import { markdown } from "../report.ts";
import type { BusinessReport } from "./evaluate-business.ts";
import { KINDS } from "./questions.ts";
import { BUSINESS_METRICS } from "./score.ts";

const LABELS: Record<(typeof BUSINESS_METRICS)[number], string> = {
  hit_at_1: "hit@1",
  recall_at_5: "R@5",
  recall_at_10: "R@10",
  all_gold_at_10: "both @10",
  entries_at_10: "entries @10",
  sources_at_10: "sources @10",
  stale_above: "stale above",
};

export function formatBusinessReport(report: BusinessReport): string {
  const ok = report.systems.filter((s) => s.status === "ok" && s.by_kind);
  const lines = [`${report.dataset.name}: ${JSON.stringify(report.dataset.by_kind)}`, ""];
  for (const kind of KINDS) {
    const metrics = BUSINESS_METRICS.filter((m) => ok.some((s) => s.by_kind![kind]?.[m] !== undefined));
    const rows = ok.map((s) => {
      const a = s.by_kind![kind];
      return [s.name, String(a?.questions ?? 0), ...metrics.map((m) => a?.[m]?.toFixed(3) ?? "—")];
    });
    lines.push(`${kind}`, markdown([["", "questions", ...metrics.map((m) => LABELS[m])], ...rows]), "");
  }
  for (const s of report.systems.filter((x) => x.status !== "ok"))
    lines.push(`${s.name}: ${s.status}: ${s.note ?? ""}`);
  return lines.join("\n");
}
