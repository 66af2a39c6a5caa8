/**
 * HTML mail → readable plain text: tags go, entities are decoded, block elements and `<br>` keep
 * their line breaks, list items become "- " lines, a link keeps its address after its label, and
 * scripts, styles and the head are dropped. Not a browser: a careful tokenizer good enough for
 * the markup mail clients send. Whitespace collapses as in a browser, except inside `<pre>`.
 */
import { decodeHtmlEntities } from "./html-entities.ts";

/** Comments, tags (attribute values may hold `>`), doctypes and processing instructions. */
const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>|<![^>]*>|<\?[^>]*>/g;

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(["script", "style", "head", "title", "template", "noframes"]);
/** Blocks set off by a blank line. */
const PARAGRAPHS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "pre",
  "table",
  "dl",
  "hr",
  "figure",
]);
/** Blocks that start on a line of their own. */
const LINES = new Set([
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "nav",
  "aside",
  "address",
  "center",
  "form",
  "fieldset",
  "li",
  "tr",
  "dt",
  "dd",
  "figcaption",
  "caption",
  "tbody",
  "thead",
  "tfoot",
]);

class TextWriter {
  private out = "";

  text(chunk: string, pre: boolean): void {
    let s = chunk;
    if (!pre) {
      if (this.atLineStart() || this.out.endsWith(" ")) s = s.replace(/^ +/, "");
      if (!s) return;
    }
    this.out += s;
  }

  /** Ends the current line; `blank` leaves an empty line after it. Never at the very start. */
  block(blank: boolean): void {
    this.out = this.out.replace(/[ \t]+$/, "");
    if (!this.out) return;
    const wanted = blank ? "\n\n" : "\n";
    const trailing = /\n*$/.exec(this.out)![0].length;
    if (trailing < wanted.length) this.out += wanted.slice(trailing);
  }

  lineBreak(): void {
    this.out = `${this.out.replace(/[ \t]+$/, "")}\n`;
  }

  raw(s: string): void {
    this.out += s;
  }

  get length(): number {
    return this.out.length;
  }

  since(position: number): string {
    return this.out.slice(position);
  }

  result(): string {
    return this.out
      .replace(/[ \t]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+|\s+$/g, "");
  }

  private atLineStart(): boolean {
    return this.out === "" || this.out.endsWith("\n");
  }
}

function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i").exec(attrs);
  const value = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
  return value === undefined ? undefined : decodeHtmlEntities(value).trim();
}

/** The text a link adds after its label: its address, when that says something the label does not. */
function linkSuffix(href: string | undefined, label: string): string {
  if (!href || !/^(https?:|mailto:)/i.test(href)) return "";
  const shown = label.trim();
  const address = href.replace(/^mailto:/i, "");
  if (!shown || shown === href || shown === address) return "";
  return ` (${address})`;
}

interface State {
  writer: TextWriter;
  hidden: string | undefined;
  pre: number;
  lists: number;
  links: { href: string | undefined; start: number }[];
}

function onText(state: State, raw: string): void {
  if (state.hidden) return;
  const text = state.pre > 0 ? raw : raw.replace(/[ \t\n\r\f]+/g, " ");
  state.writer.text(decodeHtmlEntities(text).replace(/\u00a0/g, " "), state.pre > 0);
}

function onTag(state: State, closing: boolean, name: string, attrs: string): void {
  if (state.hidden) {
    if (closing && name === state.hidden) state.hidden = undefined;
  } else if (HIDDEN.has(name)) {
    if (!closing && !attrs.trimEnd().endsWith("/")) state.hidden = name;
  } else if (name === "br") state.writer.lineBreak();
  else if (name === "ul" || name === "ol") onList(state, closing);
  else if (name === "td" || name === "th") {
    if (closing) state.writer.text(" ", false);
  } else if (name === "a") onLink(state, closing, attrs);
  else onBlock(state, closing, name);
}

function onBlock(state: State, closing: boolean, name: string): void {
  if (name === "pre") state.pre = Math.max(0, state.pre + (closing ? -1 : 1));
  if (PARAGRAPHS.has(name)) state.writer.block(true);
  else if (LINES.has(name)) state.writer.block(false);
  if (name === "li" && !closing) state.writer.raw(`${"  ".repeat(Math.max(0, state.lists - 1))}- `);
}

/** A list stands apart by a blank line; a list nested in an item just starts on the next line. */
function onList(state: State, closing: boolean): void {
  const nested = closing ? state.lists > 1 : state.lists > 0;
  state.writer.block(!nested);
  state.lists = Math.max(0, state.lists + (closing ? -1 : 1));
}

function onLink(state: State, closing: boolean, attrs: string): void {
  if (!closing) {
    state.links.push({ href: attribute(attrs, "href"), start: state.writer.length });
    return;
  }
  const link = state.links.pop();
  if (link) state.writer.text(linkSuffix(link.href, state.writer.since(link.start)), false);
}

export function htmlToText(html: string): string {
  const state: State = { writer: new TextWriter(), hidden: undefined, pre: 0, lists: 0, links: [] };
  let last = 0;
  for (const m of html.matchAll(TOKEN)) {
    onText(state, html.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2]) onTag(state, m[1] === "/", m[2].toLowerCase(), m[3] ?? "");
  }
  onText(state, html.slice(last));
  return state.writer.result();
}
