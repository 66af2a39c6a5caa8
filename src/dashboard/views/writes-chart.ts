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
  const series: Series[] = CATEGORIES.map((c) => ({
    name: c,
    colour: CATEGORY_COLOURS[c],
    values: writesPerDay[c],
  }));
  const legend = CATEGORIES.map((c) => html`<span><i class="swatch swatch-${c}"></i>${c}</span> `);
  return html`<div class="writes-chart">${stackedColumns("Entries written per day, by category", days, series)}<p class="chart-legend">${legend}</p></div>`;
}
