/**
 * `MEMORY_RUNTIME_SECRETS_FILE`: per-tenant secrets kept in a dotenv file beside the environment, so
 * an operator can add or rotate a tenant's secrets without a restart (re-read on SIGHUP and on
 * `POST /admin/reload`). The file must not be readable by group or others; its values are never
 * logged: errors name a line number, never what is on it.
 */
import { readFileSync, statSync } from "node:fs";

export class SecretsFileError extends Error {}

/** Reads and parses the file; throws SecretsFileError saying why it is refused. */
export function readSecretsFile(path: string): Record<string, string> {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    throw new SecretsFileError(
      `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  if ((mode & 0o077) !== 0) {
    throw new SecretsFileError(
      `${path} is readable or writable by group or others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`,
    );
  }
  return parseDotenv(readFileSync(path, "utf8"));
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/**
 * Dotenv lines: `NAME=value`, `export NAME=value`, `NAME="value with spaces"` (with \n, \" and \\
 * escapes), `NAME='literal'`, `# comments` and blank lines. A later line wins. Anything else is
 * refused, naming the line number only.
 */
export function parseDotenv(text: string): Record<string, string> {
  // A null prototype: a line named __proto__ is data like any other, never a prototype assignment.
  const out: Record<string, string> = Object.create(null);
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "" || raw.trim().startsWith("#")) continue;
    const match = LINE.exec(raw);
    if (!match) throw new SecretsFileError(`line ${i + 1} is not NAME=value`);
    const value = unquoted(match[2]!);
    if (value === undefined) throw new SecretsFileError(`line ${i + 1} has an unterminated quote`);
    out[match[1]!] = value;
  }
  return out;
}

function unquoted(raw: string): string | undefined {
  if (raw.startsWith('"')) {
    if (raw.length < 2 || !raw.endsWith('"')) return undefined;
    return raw.slice(1, -1).replace(/\\(["\\n])/g, (_m, c: string) => (c === "n" ? "\n" : c));
  }
  if (raw.startsWith("'")) {
    if (raw.length < 2 || !raw.endsWith("'")) return undefined;
    return raw.slice(1, -1);
  }
  // Unquoted: an inline comment starts at " #".
  const comment = raw.indexOf(" #");
  return (comment >= 0 ? raw.slice(0, comment) : raw).trim();
}
