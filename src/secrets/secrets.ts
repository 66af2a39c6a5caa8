import { ConfigError, type Env } from "../config/config.ts";
import { SecretMissing } from "../errors/domain-errors.ts";
import { ULID_RE } from "../models/common.ts";
import { readSecretsFile, SecretsFileError } from "./secrets-file.ts";

/**
 * The one place per-tenant secrets are read: `<BASE>_<TENANT_ID>` variables (SPEC §5), from the
 * environment and, when configured, `MEMORY_RUNTIME_SECRETS_FILE` (the environment wins). Read at
 * call time, so a reload of the file takes effect at once. Values are never logged or returned in
 * errors: only variable names are.
 */
export class Secrets {
  private file: Readonly<Record<string, string>> = {};

  /** Throws SecretsFileError when the file is refused (unreadable, too open, malformed). */
  constructor(
    private readonly env: Env,
    private readonly filePath?: string,
  ) {
    if (filePath) this.file = readSecretsFile(filePath);
  }

  /** The value of `<base>_<tenantId>`, or undefined when unset or empty. */
  get(base: string, tenantId: string): string | undefined {
    return this.value(variableName(base, tenantId));
  }

  /** Every required secret, or SecretMissing naming (never revealing) what is absent. */
  require(
    bases: readonly string[],
    tenantId: string,
    optional: readonly string[] = [],
  ): Record<string, string> {
    const found: Record<string, string> = {};
    const missing: string[] = [];
    for (const base of bases) {
      const value = this.get(base, tenantId);
      if (value === undefined) missing.push(variableName(base, tenantId));
      else found[base] = value;
    }
    if (missing.length > 0) throw new SecretMissing(missing);
    for (const base of optional) {
      const value = this.get(base, tenantId);
      if (value !== undefined) found[base] = value;
    }
    return found;
  }

  /** Whether every named secret is present (connectors use this to decide whether to start). */
  has(bases: readonly string[], tenantId: string): boolean {
    return bases.every((base) => this.get(base, tenantId) !== undefined);
  }

  /**
   * Re-reads the secrets file. Returns the tenants whose effective variables changed (added, removed
   * or a new value; a variable the environment sets does not change). A refused file throws
   * SecretsFileError and the values in force stay.
   */
  reload(): Set<string> {
    if (!this.filePath) return new Set();
    const next = readSecretsFile(this.filePath);
    const before = this.file;
    this.file = next;
    const changed = new Set<string>();
    for (const name of new Set([...Object.keys(before), ...Object.keys(next)])) {
      if (this.env[name] || (before[name] ?? "") === (next[name] ?? "")) continue;
      const tenantId = tenantOf(name);
      if (tenantId) changed.add(tenantId);
    }
    return changed;
  }

  /** Whether a secrets file is configured (reloads do something). */
  get reloadable(): boolean {
    return this.filePath !== undefined;
  }

  private value(name: string): string | undefined {
    const value = this.env[name] || this.file[name];
    return value ? value : undefined;
  }
}

export function variableName(base: string, tenantId: string): string {
  return `${base}_${tenantId}`;
}

/** The tenant a `<BASE>_<TENANT_ID>` variable belongs to, or undefined. */
function tenantOf(name: string): string | undefined {
  const suffix = name.slice(-26);
  return name.length > 27 && name[name.length - 27] === "_" && ULID_RE.test(suffix) ? suffix : undefined;
}

/** The secrets of the environment and the secrets file; a refused file stops the start. */
export function openSecrets(env: Env, file: string | undefined): Secrets {
  try {
    return new Secrets(env, file);
  } catch (error) {
    if (error instanceof SecretsFileError)
      throw new ConfigError(`MEMORY_RUNTIME_SECRETS_FILE: ${error.message}`);
    throw error;
  }
}
