import { median } from "./stats.ts";

/** A reported figure: the median of its runs, beside its target when it has one. */
export interface Figure {
  key: string;
  runs: number[];
  /** `>=` or `<=` a value; none for a baseline. */
  target?: { op: ">=" | "<="; value: number };
  /** Shown in the target column instead, when there is no target. */
  note?: string;
}

export const medianOf = (f: Figure) => median(f.runs);

export function passes(f: Figure): boolean | undefined {
  if (!f.target) return undefined;
  const v = medianOf(f);
  if (!Number.isFinite(v)) return false;
  return f.target.op === ">=" ? v >= f.target.value : v <= f.target.value;
}

const targetText = (f: Figure) =>
  f.target ? `${f.target.op === ">=" ? "≥" : "≤"} ${format(f.target.value)}` : (f.note ?? "");

export function format(v: number): string {
  if (!Number.isFinite(v)) return "n/a";
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  if (Math.abs(v) >= 100) return String(Math.round(v * 10) / 10);
  return String(Math.round(v * 1000) / 1000);
}

/** The figures as a Markdown table: key, median, runs, target, ✓/✗. */
export function table(figures: Figure[]): string {
  const rows = [
    ["key", "median", "runs", "target", ""],
    ...figures.map((f) => {
      const ok = passes(f);
      return [
        f.key,
        format(medianOf(f)),
        f.runs.map(format).join(" / "),
        targetText(f),
        ok === undefined ? "" : ok ? "✓" : "✗",
      ];
    }),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => [...row[c]!].length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, c) => cell + " ".repeat(widths[c]! - [...cell].length)).join(" | ")} |`;
  return [
    line(rows[0]!),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

/** The JSON of the figures: each key at the top level with its median, then runs, targets and verdicts. */
export function figuresJson(figures: Figure[]) {
  const top: Record<string, number | null> = {};
  const runs: Record<string, number[]> = {};
  const targets: Record<string, string> = {};
  const pass: Record<string, boolean> = {};
  for (const f of figures) {
    const v = medianOf(f);
    top[f.key] = Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null;
    runs[f.key] = f.runs;
    if (f.target) targets[f.key] = targetText(f);
    const ok = passes(f);
    if (ok !== undefined) pass[f.key] = ok;
  }
  return { top, runs, targets, pass };
}
