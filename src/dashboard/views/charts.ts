import { formatNumber, html, SafeHtml } from "./html.ts";

/**
 * Inline SVG charts: no script, no outside asset, every label escaped. Each mark carries a
 * `<title>` so a hover shows its figure, and the chart an `aria-label` saying what it shows.
 */

export interface Series {
  name: string;
  colour: string;
  values: number[];
}

/** A constant attribute list of this module, so it is markup, not text. */
const FONT = new SafeHtml('font-family="system-ui, sans-serif" font-size="11"');

/** X labels at most: a label every few days keeps each one readable on a phone. */
const MAX_X_LABELS = 8;

/**
 * Stacked columns: one per label (a day), one segment per series (a category). The y axis has
 * three ticks (0, half, the top) and its name; the x axis labels every few columns (the first and
 * the last always) and names itself; each non-empty column has its total above it.
 */
export function stackedColumns(
  title: string,
  labels: string[],
  series: Series[],
  axes: { x: string; y: string } = { x: "day", y: "entries" },
): SafeHtml {
  const width = 720;
  const height = 240;
  const pad = { left: 52, right: 10, top: 18, bottom: 56 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceTop(Math.max(1, ...totals));
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(2, slot * 0.7);
  const base = pad.top + plotH;
  const columns = labels.map((label, i) => {
    let y = base;
    const x = pad.left + i * slot + (slot - barW) / 2;
    const segments = series.map((s) => {
      const value = s.values[i] ?? 0;
      if (value === 0) return html``;
      const h = (value / max) * plotH;
      y -= h;
      return html`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${s.colour}"><title>${label} ${s.name}: ${formatNumber(value)}</title></rect>`;
    });
    const total =
      totals[i]! > 0
        ? html`<text class="value" x="${(x + barW / 2).toFixed(1)}" y="${(y - 3).toFixed(1)}" text-anchor="middle" ${FONT}>${formatNumber(totals[i]!)}</text>`
        : "";
    return html`<g class="column" data-label="${label}">${segments}${total}</g>`;
  });
  const every = Math.max(1, Math.ceil(labels.length / MAX_X_LABELS));
  const xLabels = labels.map((label, i) =>
    i % every === 0 || i === labels.length - 1
      ? html`<text class="x-label" x="${(pad.left + i * slot + slot / 2).toFixed(1)}" y="${base + 14}" text-anchor="middle" ${FONT}>${label.slice(5)}</text>`
      : "",
  );
  const yTicks = [0, max / 2, max].map((v) => {
    const y = base - (v / max) * plotH;
    return html`<g class="y-tick"><line x1="${pad.left}" y1="${y.toFixed(1)}" x2="${width - pad.right}" y2="${y.toFixed(1)}" stroke="#e3e6ea"/><text x="${pad.left - 4}" y="${(y + 4).toFixed(1)}" text-anchor="end" ${FONT}>${formatNumber(v)}</text></g>`;
  });
  const axis = html`${yTicks}<line x1="${pad.left}" y1="${base}" x2="${width - pad.right}" y2="${base}" stroke="#888"/>
<text class="axis-name" x="12" y="${pad.top + plotH / 2}" transform="rotate(-90 12 ${pad.top + plotH / 2})" text-anchor="middle" ${FONT}>${axes.y}</text>
<text class="axis-name" x="${pad.left + plotW / 2}" y="${base + 30}" text-anchor="middle" ${FONT}>${axes.x}${labels.length > 0 ? ` (${labels[0]} to ${labels[labels.length - 1]})` : ""}</text>`;
  return html`<figure class="chart"><svg role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">${axis}${xLabels}${columns}${legend(series, pad.left, height - 8)}</svg><figcaption>${title}</figcaption></figure>`;
}

/** The axis's top: the largest figure rounded up to 1, 2 or 5 times a power of ten (halves stay whole). */
export function niceTop(max: number): number {
  const power = 10 ** Math.floor(Math.log10(max));
  const top = [1, 2, 5, 10].map((m) => m * power).find((t) => t >= max) ?? 10 * power;
  return top === 1 ? 2 : top;
}

export interface BarRow {
  label: string;
  segments: Array<{ name: string; colour: string; value: number }>;
}

/** Horizontal stacked bars: one row per label (a source), one segment per kind of figure. */
export function stackedBars(title: string, rows: BarRow[]): SafeHtml {
  const width = 720;
  const rowH = 18;
  const labelW = 130;
  const height = 30 + rows.length * (rowH + 6);
  const totals = rows.map((r) => r.segments.reduce((sum, s) => sum + s.value, 0));
  const max = Math.max(1, ...totals);
  const plotW = width - labelW - 60;
  const bars = rows.map((row, i) => {
    const y = 6 + i * (rowH + 6);
    let x = labelW;
    const segments = row.segments.map((s) => {
      if (s.value === 0) return html``;
      const w = (s.value / max) * plotW;
      const rect = html`<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowH}" fill="${s.colour}"><title>${row.label} ${s.name}: ${formatNumber(s.value)}</title></rect>`;
      x += w;
      return rect;
    });
    return html`<g class="bar" data-label="${row.label}"><text x="${labelW - 6}" y="${y + 13}" text-anchor="end" ${FONT}>${row.label}</text>${segments}<text x="${(x + 4).toFixed(1)}" y="${y + 13}" ${FONT}>${formatNumber(totals[i]!)}</text></g>`;
  });
  const kinds = rows[0]?.segments.map((s) => ({ name: s.name, colour: s.colour, values: [] })) ?? [];
  return html`<figure class="chart"><svg role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">${bars}${legend(kinds, labelW, height - 6)}</svg><figcaption>${title}</figcaption></figure>`;
}

function legend(series: Array<{ name: string; colour: string }>, x0: number, y: number): SafeHtml {
  let x = x0;
  return html`<g class="legend">${series.map((s) => {
    const item = html`<rect x="${x}" y="${y - 9}" width="10" height="10" fill="${s.colour}"/><text x="${x + 14}" y="${y}" ${FONT}>${s.name}</text>`;
    x += 24 + s.name.length * 7;
    return item;
  })}</g>`;
}
