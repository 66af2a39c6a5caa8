/**
 * Remote JSON Web Key Sets, one cached resolver per URL. jose's remote set keeps the keys for
 * `cacheMaxAge`, and fetches again when a token names an unknown `kid` (key rotation), but at
 * most once per `cooldown` so a flood of forged kids cannot turn into a flood of fetches.
 */
import { createRemoteJWKSet } from "jose";
import type { JwksResolver } from "../types.ts";

/** The provider's published keys for the OIDC tokens of push deliveries. */
export const DEFAULT_MAIL_JWKS_URL = "https://www.googleapis.com/oauth2/v3/certs";

export interface JwksOptions {
  /** Minimum time between two fetches caused by unknown kids. Default 30 s. */
  cooldownMs?: number;
  /** How long a fetched set is used without asking again. Default 10 min. */
  cacheMaxAgeMs?: number;
  /** Timeout of one fetch. Default 5 s. */
  timeoutMs?: number;
}

const resolvers = new Map<string, JwksResolver>();

export function createJwksResolver(url: string, options: JwksOptions = {}): JwksResolver {
  const cooldownMs = options.cooldownMs ?? 30_000;
  const cacheMaxAgeMs = options.cacheMaxAgeMs ?? 10 * 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const cacheKey = `${url}|${cooldownMs}|${cacheMaxAgeMs}|${timeoutMs}`;
  const cached = resolvers.get(cacheKey);
  if (cached) return cached;
  const keyFor = createRemoteJWKSet(new URL(url), {
    cooldownDuration: cooldownMs,
    cacheMaxAge: cacheMaxAgeMs,
    timeoutDuration: timeoutMs,
  });
  const resolver: JwksResolver = { url, keyFor };
  resolvers.set(cacheKey, resolver);
  return resolver;
}
