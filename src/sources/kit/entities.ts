/**
 * Decoding of character references in text from XML bodies and mail snippets. Only the five
 * predefined XML entities and numeric references are known: no DTD, no user-defined entities,
 * so nothing ever expands beyond one character per reference.
 */
const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function fromCodePoint(code: number): string | undefined {
  const valid =
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff);
  return valid ? String.fromCodePoint(code) : undefined;
}

/** Replaces `&amp;`-style and `&#233;`/`&#xE9;` references; unknown or invalid ones stay as written. */
export function decodeEntities(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith("#x")) return fromCodePoint(Number.parseInt(ref.slice(2), 16)) ?? whole;
    if (ref.startsWith("#")) return fromCodePoint(Number.parseInt(ref.slice(1), 10)) ?? whole;
    return NAMED[ref] ?? whole;
  });
}
