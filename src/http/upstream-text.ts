/**
 * What a client of an upstream service (an embeddings or re-ranking endpoint) may say about it in
 * an error message, which reaches the log: a short excerpt of its answer, and its URL without
 * credentials.
 */

// Enough of a failing response body to say why, short enough for a log line.
const BODY_EXCERPT_CHARS = 200;

export function bodyExcerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (!flat) return "(empty body)";
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}…` : flat;
}

/** Credentials in the URL itself (`https://user:pass@host`) must not reach a log either. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(unparseable url)";
  }
}

/** A message without `secret` in it, even where an upstream echoed it. */
export function withoutSecret(message: string, secret: string | undefined): string {
  return secret ? message.split(secret).join("[redacted]") : message;
}
