import { describe, expect, test } from "bun:test";
import { niceTop, stackedBars, stackedColumns } from "../../src/dashboard/views/charts.ts";
import { escapeHtml, html, SafeHtml } from "../../src/dashboard/views/html.ts";
import { MIN_DAYS_SHOWN, spanStart, writesChart } from "../../src/dashboard/views/writes-chart.ts";
import { CATEGORIES, type Category } from "../../src/models/category.ts";

describe("html", () => {
  test("escapes the five characters that can end a text or an attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  test("interpolated values are escaped; nested html is not escaped twice; arrays join; null, undefined and false vanish", () => {
    const name = `"><script>x</script>`;
    const inner = html`<b>${name}</b>`;
    const out = html`<p title="${name}">${inner}${[html`<i>1</i>`, "<2>"]}${null}${undefined}${false}${0}</p>`;
    expect(out.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"><b>&quot;&gt;&lt;script&gt;x&lt;/script&gt;</b><i>1</i>&lt;2&gt;0</p>',
    );
  });

  test("only SafeHtml passes unescaped: an object with a toString does not", () => {
    const sneaky = { toString: () => "<script>" } as unknown as string;
    expect(html`${sneaky}`.value).toBe("&lt;script&gt;");
    expect(html`${new SafeHtml("<br>")}`.value).toBe("<br>");
  });
});

describe("charts", () => {
  test("stacked columns: one segment per non-zero value, each titled with its figure, labels escaped", () => {
    const svg = stackedColumns(
      "Writes <per> day",
      ["d1", "d2"],
      [
        { name: "fact", colour: "#111", values: [2, 0] },
        { name: "a<b", colour: "#222", values: [1, 3] },
      ],
    ).value;
    expect(svg.match(/<rect x=/g)).toHaveLength(3 + 2); // three segments, two legend swatches
    expect(svg).toContain("<title>d1 fact: 2</title>");
    expect(svg).toContain("<title>d2 a&lt;b: 3</title>");
    expect(svg).toContain('aria-label="Writes &lt;per&gt; day"');
    expect(svg).not.toContain("a<b");
  });

  test("stacked bars: the tallest row spans the plot; zero segments are left out", () => {
    const svg = stackedBars("Events", [
      {
        label: "payments",
        segments: [
          { name: "accepted", colour: "#0f0", value: 4 },
          { name: "rejected", colour: "#f00", value: 0 },
        ],
      },
      {
        label: "crm",
        segments: [
          { name: "accepted", colour: "#0f0", value: 2 },
          { name: "rejected", colour: "#f00", value: 2 },
        ],
      },
    ]).value;
    expect(svg).toContain("<title>payments accepted: 4</title>");
    expect(svg).not.toContain("payments rejected");
    const widths = [...svg.matchAll(/<rect x="[\d.]+" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths.slice(0, 3)).toEqual([530, 265, 265]);
  });
});

/** Thirty days of writes: `facts[i]` facts on day i, nothing else. */
function thirtyDays(facts: Record<number, number>): { days: string[]; writes: Record<Category, number[]> } {
  const days = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, "0")}`);
  const writes = Object.fromEntries(CATEGORIES.map((c) => [c, days.map(() => 0)])) as Record<
    Category,
    number[]
  >;
  for (const [i, n] of Object.entries(facts)) writes.fact[Number(i)] = n;
  return { days, writes };
}

describe("the writes chart's axes and span", () => {
  test("the y axis has ticks 0, half and a round top, and its name; the x axis names itself and its range", () => {
    const svg = stackedColumns(
      "t",
      ["2026-11-01", "2026-11-02"],
      [{ name: "fact", colour: "#111", values: [3, 7] }],
      { x: "UTC day", y: "entries written" },
    ).value;
    const ticks = [...svg.matchAll(/<g class="y-tick">.*?<text[^>]*>([^<]+)<\/text><\/g>/g)].map((m) => m[1]);
    expect(ticks).toEqual(["0", "5", "10"]);
    expect(svg).toContain(">entries written</text>");
    expect(svg).toContain(">UTC day (2026-11-01 to 2026-11-02)</text>");
    // Each column's total above it.
    const values = [...svg.matchAll(/<text class="value"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(values).toEqual(["3", "7"]);
  });

  test("thirty days get at most eight x labels, the first and the last among them", () => {
    const { days, writes } = thirtyDays({ 0: 1, 29: 2 });
    const svg = writesChart(days, writes).value;
    const labels = [...svg.matchAll(/<text class="x-label"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(labels.length).toBeLessThanOrEqual(9);
    expect(labels[0]).toBe("11-01");
    expect(labels[labels.length - 1]).toBe("11-30");
  });

  test("the chart spans the data: from the first write, at least a week; none written → the last week", () => {
    expect(spanStart(30, thirtyDays({ 10: 4, 20: 1 }).writes)).toBe(10);
    expect(spanStart(30, thirtyDays({ 28: 4 }).writes)).toBe(30 - MIN_DAYS_SHOWN);
    expect(spanStart(30, thirtyDays({}).writes)).toBe(30 - MIN_DAYS_SHOWN);
    const { days, writes } = thirtyDays({ 24: 2, 29: 5 });
    const svg = writesChart(days, writes).value;
    expect(svg.match(/<g class="column"/g)).toHaveLength(MIN_DAYS_SHOWN);
    expect(svg).toContain("(2026-11-24 to 2026-11-30)");
    expect(svg).toContain("the 7 days since the first write of the last 30");
  });

  test("niceTop rounds up to 1, 2 or 5 times a power of ten", () => {
    expect([1, 3, 7, 10, 11, 40, 51, 999].map(niceTop)).toEqual([2, 5, 10, 10, 20, 50, 100, 1000]);
  });
});
