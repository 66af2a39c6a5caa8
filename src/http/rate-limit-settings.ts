/**
 * Rate-limit settings: what each route class allows per tenant, and per-tenant overrides, parsed
 * from the environment by src/config/config.ts. A limit is a token bucket: `perSecond` tokens a second
 * refill it, up to `burst`; every request takes one. `null` means no limit.
 */
import { OPERATOR_TENANT_ID, ULID_RE } from "../models/common.ts";

/** The classes routes are limited by (src/http/rate-limit.ts says which route is in which). */
export const RATE_CLASSES = ["read", "write", "search", "mcp", "admin", "webhook"] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type ClassLimits = Record<RateClass, RateLimit | null>;

export interface RateLimitSettings {
  /** False: `MEMORY_RUNTIME_RATE_LIMITS=off`, nothing is limited. */
  enabled: boolean;
  classes: ClassLimits;
  /** Per tenant (the operator under its all-zeros id): the classes it overrides. */
  tenants: ReadonlyMap<string, Partial<ClassLimits>>;
  /** Buckets kept at most; idle ones go first (a bucket per tenant and class, per source for webhooks). */
  maxBuckets: number;
  /** How long a refusal is held before it is answered (src/http/rate-limit.ts says why). */
  holdMs: number;
}

/**
 * Generous on purpose: far above what an agent or a platform sends in normal use, so only a
 * runaway client meets them. A deployment tightens them to what its hardware serves.
 */
export const DEFAULT_CLASS_LIMITS: ClassLimits = {
  read: { perSecond: 2000, burst: 4000 },
  write: { perSecond: 1000, burst: 2000 },
  search: { perSecond: 500, burst: 1000 },
  mcp: { perSecond: 1000, burst: 2000 },
  admin: { perSecond: 500, burst: 2000 },
  webhook: { perSecond: 500, burst: 1000 },
};

export const DEFAULT_MAX_BUCKETS = 100_000;
export const DEFAULT_HOLD_MS = 250;
export const RATE_LIMITS_VAR = "MEMORY_RUNTIME_RATE_LIMITS";
const MAX_RATE = 1_000_000;
const MAX_BURST = 10_000_000;

/** A value the parser refuses; src/config/config.ts turns it into a ConfigError naming the variable. */
export class RateLimitSyntaxError extends Error {}

/**
 * `read=200:400,search=20,webhook=off`: per class, tokens a second and the burst (the burst
 * defaults to one second's worth), or `off`. Unnamed classes are left out of the result.
 */
export function parseClassLimits(name: string, raw: string): Partial<ClassLimits> {
  const out: Partial<ClassLimits> = {};
  for (const part of raw.split(",")) {
    const item = part.trim();
    const at = item.indexOf("=");
    const rateClass = item.slice(0, at).trim();
    if (at < 0 || !(RATE_CLASSES as readonly string[]).includes(rateClass)) {
      throw new RateLimitSyntaxError(
        `${name}: "${item}" is not <class>=<per second>[:<burst>] or <class>=off; classes: ${RATE_CLASSES.join(", ")}`,
      );
    }
    if ((rateClass as RateClass) in out)
      throw new RateLimitSyntaxError(`${name}: ${rateClass} is given twice`);
    out[rateClass as RateClass] = parseLimit(name, rateClass, item.slice(at + 1).trim());
  }
  return out;
}

function parseLimit(name: string, rateClass: string, value: string): RateLimit | null {
  if (value === "off") return null;
  const match = /^(\d{1,7}(?:\.\d{1,3})?)(?::(\d{1,8}))?$/.exec(value);
  const perSecond = Number(match?.[1]);
  const burst = match?.[2] === undefined ? Math.max(1, Math.floor(perSecond)) : Number(match[2]);
  if (!match || !(perSecond > 0) || perSecond > MAX_RATE || burst < 1 || burst > MAX_BURST) {
    throw new RateLimitSyntaxError(
      `${name}: ${rateClass}="${value}" must be <per second>[:<burst>] (a rate above 0 and at most ${MAX_RATE}, a burst of 1 to ${MAX_BURST}) or off`,
    );
  }
  return { perSecond, burst };
}

/**
 * The settings from the environment: `MEMORY_RUNTIME_RATE_LIMITS` (`off`, or class limits over the
 * defaults) and `MEMORY_RUNTIME_RATE_LIMITS_<TENANT_ID>` (that tenant's classes). A per-tenant
 * variable whose suffix is not a tenant id is refused, so a typo is not silently ignored.
 */
export function rateLimitSettingsOf(
  env: Readonly<Record<string, string | undefined>>,
  sizes: { maxBuckets: number; holdMs: number },
): RateLimitSettings {
  const raw = env[RATE_LIMITS_VAR]?.trim() ?? "";
  const enabled = raw !== "off";
  const classes = {
    ...DEFAULT_CLASS_LIMITS,
    ...(enabled && raw ? parseClassLimits(RATE_LIMITS_VAR, raw) : {}),
  };
  const tenants = new Map<string, Partial<ClassLimits>>();
  const prefix = `${RATE_LIMITS_VAR}_`;
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(prefix) || value === undefined || value.trim() === "") continue;
    const tenantId = name.slice(prefix.length);
    if (!ULID_RE.test(tenantId)) {
      throw new RateLimitSyntaxError(
        `${name}: "${tenantId}" is not a tenant id (a ULID, or ${OPERATOR_TENANT_ID} for the operator)`,
      );
    }
    tenants.set(tenantId, parseClassLimits(name, value.trim()));
  }
  return { enabled, classes, tenants, ...sizes };
}
