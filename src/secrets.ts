import type { Env } from "./config.ts";
import { SecretMissing } from "./errors.ts";

/**
 * The one place per-tenant secrets are read: `<BASE>_<TENANT_ID>` variables (SPEC §5). Read at
 * call time, so an operator can add a tenant's secrets without a restart where the platform allows.
 */
export class Secrets {
  constructor(private readonly env: Env) {}

  /** The value of `<base>_<tenantId>`, or undefined when unset or empty. */
  get(base: string, tenantId: string): string | undefined {
    const value = this.env[variableName(base, tenantId)];
    return value ? value : undefined;
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
}

export function variableName(base: string, tenantId: string): string {
  return `${base}_${tenantId}`;
}
