import { describe, expect, test } from "bun:test";
import { stackedBars, stackedColumns } from "../../src/dashboard/views/charts.ts";
import { escapeHtml, html, SafeHtml } from "../../src/dashboard/views/html.ts";

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
