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

/** Stacked columns: one per label (a day), one segment per series (a category). */
export function stackedColumns(title: string, labels: string[], series: Series[]): SafeHtml {
  const width = 720;
  const height = 220;
  const pad = { left: 40, right: 10, top: 10, bottom: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(2, slot * 0.7);
  const columns = labels.map((label, i) => {
    let y = pad.top + plotH;
    const x = pad.left + i * slot + (slot - barW) / 2;
    const segments = series.map((s) => {
      const value = s.values[i] ?? 0;
      if (value === 0) return html``;
      const h = (value / max) * plotH;
      y -= h;
      return html`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${s.colour}"><title>${label} ${s.name}: ${formatNumber(value)}</title></rect>`;
    });
    return html`<g class="column" data-label="${label}">${segments}</g>`;
  });
  const axis = html`<line x1="${pad.left}" y1="${pad.top + plotH}" x2="${width - pad.right}" y2="${pad.top + plotH}" stroke="#888"/>
<text x="${pad.left - 4}" y="${pad.top + 8}" text-anchor="end" ${FONT}>${formatNumber(max)}</text>
<text x="${pad.left - 4}" y="${pad.top + plotH}" text-anchor="end" ${FONT}>0</text>
<text x="${pad.left}" y="${height - 24}" ${FONT}>${labels[0] ?? ""}</text>
<text x="${width - pad.right}" y="${height - 24}" text-anchor="end" ${FONT}>${labels[labels.length - 1] ?? ""}</text>`;
  return html`<figure class="chart"><svg role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">${axis}${columns}${legend(series, pad.left, height - 8)}</svg><figcaption>${title}</figcaption></figure>`;
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
