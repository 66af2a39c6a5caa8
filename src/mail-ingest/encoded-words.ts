/**
 * Header text as people wrote it: RFC 2047 encoded-words (`=?UTF-8?B?...?=`, `=?ISO-8859-1?Q?...?=`)
 * decoded in their charset, folded lines unfolded. The mail API hands most headers over as they were
 * sent, so a non-ASCII subject arrives encoded.
 */

/** Bytes in a named charset; an unknown or missing charset is read as UTF-8 (bad bytes become U+FFFD). */
export function decodeBytes(bytes: Uint8Array, charset?: string): string {
  const label = (charset ?? "").trim().replace(/^"|"$/g, "").toLowerCase() || "utf-8";
  try {
    // Any WHATWG label (latin1, shift_jis, ...), not only the few the type names; unknown ones throw.
    return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** `=?charset[*language]?encoding?text?=`; the text of a word holds no spaces and no `?`. */
const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([bBqQ])\?([^?\s]*)\?=/g;

/** Text in which `marker` + two hex digits stands for a byte (Q encoding's `=`, RFC 2231's `%`). */
export function hexEscapedBytes(text: string, marker: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === marker ? text.slice(i + 1, i + 3) : "";
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i) & 0xff);
  }
  return Uint8Array.from(bytes);
}

function wordBytes(encoding: string, text: string): Uint8Array {
  if (encoding.toUpperCase() === "B") return Buffer.from(text, "base64");
  // Q: "_" always means a space (RFC 2047 §4.2).
  return hexEscapedBytes(text.replace(/_/g, "=20"), "=");
}

/**
 * Decodes every encoded-word. Whitespace between two adjacent encoded-words is dropped (RFC 2047
 * §6.2), and adjacent words in one charset are joined as bytes first, so a character that a sender
 * split across two words (common with UTF-8 in B encoding) comes out whole.
 */
export function decodeEncodedWords(value: string): string {
  const out: string[] = [];
  let run: { charset: string; chunks: Uint8Array[] } | undefined;
  const flush = () => {
    if (run) out.push(decodeBytes(Buffer.concat(run.chunks), run.charset));
    run = undefined;
  };
  let last = 0;
  for (const m of value.matchAll(ENCODED_WORD)) {
    const between = value.slice(last, m.index);
    const charset = m[1]!.toLowerCase();
    if (!run || !/^\s*$/.test(between)) {
      flush();
      out.push(between);
    } else if (run.charset !== charset) flush();
    run ??= { charset, chunks: [] };
    run.chunks.push(wordBytes(m[2]!, m[3]!));
    last = m.index + m[0].length;
  }
  flush();
  out.push(value.slice(last));
  return out.join("");
}

/** A header value for display: decoded, unfolded, every run of whitespace one space. */
export function headerText(value: string | undefined): string {
  return decodeEncodedWords(value ?? "")
    .replace(/[\s\p{Cc}]+/gu, " ")
    .trim();
}
