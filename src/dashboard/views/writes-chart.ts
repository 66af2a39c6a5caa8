import { CATEGORIES, type Category } from "../../models/category.ts";
import { type Series, stackedColumns } from "./charts.ts";
import { html, type SafeHtml } from "./html.ts";

/** One colour per category, the same on every page. */
export const CATEGORY_COLOURS: Record<Category, string> = {
  decision: "#4e79a7",
  exception: "#e15759",
  fact: "#59a14f",
  workflow: "#edc948",
  relationship: "#b07aa1",
  outcome: "#f28e2b",
};

/** The swatch colours as style rules (the pages allow no style attribute): page.ts includes them. */
export const CATEGORY_SWATCH_CSS = CATEGORIES.map(
  (c) => `.swatch-${c}{background:${CATEGORY_COLOURS[c]}}`,
).join("");

/**
 * Entries written per UTC day (`days`, oldest first), stacked by category. On a phone the chart's
 * own legend would be too small to read: an HTML one below it takes its place (page.ts).
 */
export function writesChart(days: string[], writesPerDay: Record<Category, number[]>): SafeHtml {
  const from = spanStart(days.length, writesPerDay);
  const series: Series[] = CATEGORIES.map((c) => ({
    name: c,
    colour: CATEGORY_COLOURS[c],
    values: writesPerDay[c].slice(from),
  }));
  const legend = CATEGORIES.map((c) => html`<span><i class="swatch swatch-${c}"></i>${c}</span> `);
  return html`<div class="writes-chart">${stackedColumns(
    caption(days.length - from, days.length),
    days.slice(from),
    series,
    {
      x: "UTC day",
      y: "entries written",
    },
  )}<p class="chart-legend">${legend}</p></div>`;
}

/** The fewest days shown: a week, so one busy day is not a single wide column. */
export const MIN_DAYS_SHOWN = 7;

/**
 * The first day the chart shows: the first with a write, or a week before the last day when the
 * writes are more recent than that. The chart then spans the data, not 30 days of mostly nothing.
 */
export function spanStart(count: number, writesPerDay: Record<Category, number[]>): number {
  const firstWrite = Array.from({ length: count }, (_, i) => i).find((i) =>
    CATEGORIES.some((c) => (writesPerDay[c][i] ?? 0) > 0),
  );
  const latestStart = Math.max(0, count - MIN_DAYS_SHOWN);
  return firstWrite === undefined ? latestStart : Math.min(firstWrite, latestStart);
}

function caption(shown: number, of: number): string {
  return shown === of
    ? `Entries written per day, by category (${shown} days)`
    : `Entries written per day, by category (the ${shown} days since the first write of the last ${of})`;
}
