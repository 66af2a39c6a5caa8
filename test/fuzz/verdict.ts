/**
 * What the fuzz refuses in an answer: a 5xx, a stack trace (a V8 frame, a source file with a line
 * number, an `...Error:` naming a file path), or a planted secret or server-side path, in the body
 * or in any header.
 */

export type FindingKind = "5xx" | "stack-trace" | "secret" | "timeout";

export interface Finding {
  kind: FindingKind;
  detail: string;
}

export interface AnswerView {
  status: number;
  /** Every header as `name: value` lines. */
  headers: string;
  body: string;
}

const STACK_PATTERNS: RegExp[] = [
  // A V8/JSC frame: "at fn (/path/file.ts:12:5)" or "at /path/file.js:3:1".
  /\bat\s+(?:async\s+)?(?:[\w$.<>[\]]+\s+)?\(?(?:file:\/\/)?\/[^\s()]+:\d+(?::\d+)?\)?/,
  // A source file with a line number anywhere.
  /[\w./-]+\.(?:ts|tsx|js|mjs|cjs):\d+/,
  // An error name followed by a message naming an absolute file path.
  /\b\w*Error:[^\n]{0,200}\/(?:[\w.-]+\/)+[\w.-]+/,
  // JSC's "fn@/path/file.ts:1:2" frames.
  /@\/(?:[\w.-]+\/)+[\w.-]+:\d+/,
];

/**
 * The findings of one answer. `planted` are the secret values and server-side paths that must
 * never appear (the fuzz never sends them in a body, so an answer can only have them from the server).
 */
export function inspect(answer: AnswerView, planted: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  if (answer.status >= 500)
    findings.push({ kind: "5xx", detail: `status ${answer.status}: ${clip(answer.body)}` });
  const text = `${answer.headers}\n${answer.body}`;
  for (const pattern of STACK_PATTERNS) {
    const match = pattern.exec(text);
    if (match)
      findings.push({
        kind: "stack-trace",
        detail: `${pattern.source} matched ${clip(around(text, match.index))}`,
      });
  }
  for (const secret of planted) {
    const at = text.indexOf(secret);
    if (at >= 0)
      findings.push({ kind: "secret", detail: `planted value ${mask(secret)} at ${clip(around(text, at))}` });
  }
  return findings;
}

function around(text: string, at: number): string {
  return text.slice(Math.max(0, at - 80), at + 120);
}

function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A planted value as reports name it: enough to tell which, not the value itself. */
export function mask(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} chars)`;
}
