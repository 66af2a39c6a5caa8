/** The run's figures as Markdown tables: one per system, overall and per category. */
import type { EvalReport, SystemResult } from "./evaluate.ts";
import { type Averages, METRICS } from "./metrics.ts";

const HEADERS = ["", "questions", "R@5", "R@10", "NDCG@10", "session R@5", "all evidence @10"];

export function markdown(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`;
  return [
    line(rows[0]!),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

const row = (label: string, a: Averages) => [
  label,
  String(a.questions),
  ...METRICS.map((m) => a[m].toFixed(3)),
];

function systemTable(system: SystemResult): string {
  const title = `${system.name} (${system.kind === "baseline" ? "plain BM25 baseline" : `service, MEMORY_RUNTIME_EMBEDDER=${system.name.replace(":", ", ")}`})`;
  if (system.status !== "ok" || !system.summary) return `${title}: ${system.status}: ${system.note ?? ""}`;
  const { overall, by_category } = system.summary;
  const t = system.timings!;
  return [
    title,
    markdown([HEADERS, row("overall", overall), ...Object.entries(by_category).map(([c, a]) => row(c, a))]),
    `load ${t.load_s} s, search ${t.search_s} s (p50 ${t.search_ms_p50} ms, p95 ${t.search_ms_p95} ms)`,
  ].join("\n");
}

/** Every system's overall figures side by side. */
function comparison(report: EvalReport): string {
  const ok = report.systems.filter((s) => s.status === "ok" && s.summary);
  return markdown([HEADERS, ...ok.map((s) => row(s.name, s.summary!.overall))]);
}

export function formatReport(report: EvalReport): string {
  const d = report.dataset;
  return [
    `${d.name}: ${d.conversations} conversations, ${d.sessions} sessions, ${d.turns} turns, ${d.questions} questions`,
    "",
    comparison(report),
    "",
    ...report.systems.flatMap((s) => [systemTable(s), ""]),
  ].join("\n");
}
