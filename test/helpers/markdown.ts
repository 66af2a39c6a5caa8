/** Reading the documentation's examples: fenced blocks of Markdown and the JSON a shell printed. */

/** The bodies of the ```` ```<lang> ```` blocks of a Markdown text, in order. */
export function fencedBlocksOf(markdown: string, lang: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of markdown.split("\n")) {
    if (current === undefined) {
      if (line === `\`\`\`${lang}`) current = [];
    } else if (line === "```") {
      blocks.push(current.join("\n"));
      current = undefined;
    } else current.push(line);
  }
  return blocks;
}

export const shellBlocksOf = (markdown: string): string[] => fencedBlocksOf(markdown, "sh");

/**
 * The JSON values printed one after the other (`curl -s` ends an answer without a newline, so
 * answers may share a line): each top-level object or array, found by its matching bracket
 * outside strings. Anything between values but white space is an error, so nothing is skipped.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read the printed answers field by field
export function jsonValues(text: string): any[] {
  const values: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const end = endOfValue(text, i);
    values.push(JSON.parse(text.slice(i, end)));
    i = end;
  }
  return values;
}

function endOfValue(text: string, start: number): number {
  if (text[start] !== "{" && text[start] !== "[")
    throw new Error(`not JSON at ${start}: ${JSON.stringify(text.slice(start, start + 80))}`);
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error(`unterminated JSON from ${start}`);
}
