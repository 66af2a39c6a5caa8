import { describe, expect, test } from "bun:test";
import { decodeHtmlEntities } from "../../src/mail-ingest/html-entities.ts";
import { htmlToText } from "../../src/mail-ingest/html-text.ts";

describe("htmlToText", () => {
  test("paragraphs are separated by a blank line, <br> and divs break lines, spaces collapse", () => {
    const html =
      "<p>Hello   Ada,</p>\n<p>Line one<br>Line two<BR/>Line three</p><div>A div</div><div>Next</div>";
    expect(htmlToText(html)).toBe("Hello Ada,\n\nLine one\nLine two\nLine three\n\nA div\nNext");
  });

  test("head, title, style and script content is dropped; comments too", () => {
    const html =
      "<html><head><title>Newsletter</title><style>p { color: red }</style></head>" +
      "<body><!-- tracking --><script>var a = '<p>no</p>';</script><p>Visible</p></body></html>";
    expect(htmlToText(html)).toBe("Visible");
  });

  test("entities are decoded, named and numeric, once (&amp;lt; stays &lt;)", () => {
    expect(htmlToText("<p>Caf&eacute; &mdash; 10&euro; &amp; &#x263A; &#233; &amp;lt; &unknown;</p>")).toBe(
      "Café — 10€ & ☺ é &lt; &unknown;",
    );
  });

  test("non-breaking spaces become spaces", () => {
    expect(htmlToText("Total:&nbsp;42")).toBe("Total: 42");
  });

  test("list items become dash lines, nested lists are indented", () => {
    const html = "<p>Items:</p><ul><li>one</li><li>two<ul><li>two.a</li></ul></li></ul><p>End</p>";
    expect(htmlToText(html)).toBe("Items:\n\n- one\n- two\n  - two.a\n\nEnd");
  });

  test("a link keeps its address after its label unless the label is the address", () => {
    const html =
      '<p><a href="https://example.com/a?b=1&amp;c=2">the report</a>, ' +
      '<a href="mailto:ada@example.com">ada@example.com</a>, <a href="javascript:x()">click</a></p>';
    expect(htmlToText(html)).toBe("the report (https://example.com/a?b=1&c=2), ada@example.com, click");
  });

  test("table cells are spaced and rows are lines", () => {
    expect(htmlToText("<table><tr><td>A</td><td>B</td></tr><tr><th>C</th><td>D</td></tr></table>")).toBe(
      "A B\nC D",
    );
  });

  test("<pre> keeps its spaces and line breaks", () => {
    expect(htmlToText("<p>Code:</p><pre>  if (a) {\n    b();\n  }</pre>")).toBe(
      "Code:\n\n  if (a) {\n    b();\n  }",
    );
  });

  test("an attribute value holding > does not end the tag", () => {
    expect(htmlToText('<p title="a > b">kept</p><img alt=">" src="x">')).toBe("kept");
  });

  test("plain text without tags passes through, trimmed", () => {
    expect(htmlToText("  just text \n")).toBe("just text");
  });
});

describe("decodeHtmlEntities", () => {
  test("the Latin-1 table is in code point order", () => {
    expect(decodeHtmlEntities("&nbsp;&copy;&Agrave;&times;&szlig;&divide;&yuml;")).toBe("\u00a0©À×ß÷ÿ");
  });
});
