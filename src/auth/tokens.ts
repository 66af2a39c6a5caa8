import { jwt } from "@elysiajs/jwt";
import { type Static, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { SignJWT } from "jose";
import { ulid } from "ulid";
import { Unauthorized } from "../errors/domain-errors.ts";
import { OPERATOR_TENANT_ID, ULID_RE } from "../models/common.ts";
import { MAX_TOKEN_TTL_SECONDS } from "../models/role.ts";
import type { Clock } from "../runtime/clock.ts";
import { reachOfClaims, subjectClaims, type UnscopedAccess } from "./subject-scope.ts";
import { whyRefused } from "./token-refusal.ts";

/** Clock difference tolerated between the minting tool and this runtime. */
const EXP_SKEW_SECONDS = 60;
/** Seconds since the epoch of the last instant with a 4-digit year: any `exp` beyond is nonsense. */
const MAX_EPOCH_SECONDS = 253402300799;

/** CONTRACT §3 claims. `exp` is required; `admin` only for the operator's all-zeros tenant. */
const ClaimsSchema = Type.Object({
  sub: Type.String({ minLength: 1, maxLength: 256 }),
  tenant_id: Type.String(),
  roles: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 }),
  admin: Type.Optional(Type.Boolean()),
  iat: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_EPOCH_SECONDS })),
  exp: Type.Number({ minimum: 0, maximum: MAX_EPOCH_SECONDS }),
  jti: Type.Optional(Type.String({ maxLength: 256 })),
  // A subject-restricted token's claims, read (and refused when malformed) by subject-scope.ts.
  subject: Type.Optional(Type.Unknown()),
  unscoped: Type.Optional(Type.Unknown()),
});
export type Claims = Static<typeof ClaimsSchema>;
const checkClaims = TypeCompiler.Compile(ClaimsSchema);

export interface MintRequest {
  sub: string;
  tenantId: string;
  roles: string[];
  admin?: boolean;
  ttlSeconds: number;
  /** Restricts the token to this subject's entries (subject-scope.ts). */
  subject?: string;
  /** What a restricted token may do with unscoped entries (default `read`). */
  unscoped?: UnscopedAccess;
}

export interface Minted {
  token: string;
  claims: Claims;
}

interface CachedClaims {
  claims: Claims;
  expiresAtMs: number;
}

/** A compact JWS as minted: three base64url segments (what the verified-token cache holds). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** CONTRACT §3: HS256 only. The plugin's `alg` is the signing default; verify needs its own list. */
const ALGORITHMS = ["HS256"];

/** The @elysiajs/jwt plugin, configured with the runtime's secret for HS256 tokens (docs/auth.md). */
export function jwtPlugin(secret: Uint8Array) {
  return jwt({ name: "jwt", secret, alg: "HS256", typ: "JWT" });
}

type JwtFunctions = ReturnType<typeof jwtPlugin>["decorator"]["jwt"];

/**
 * Signs and verifies HS256 tokens. Signatures are checked by the @elysiajs/jwt plugin's `verify`
 * (jose underneath: async WebCrypto, ~60 µs), always with explicit options, since without them it
 * would accept any HMAC algorithm and no `exp`; this class adds what the plugin cannot (the claims'
 * shape, the `exp` cap, the tenant scope) and caches verified tokens by their raw text: bounded,
 * and never used past their `exp`. The plugin is not decorated onto the request context, where a
 * bare `jwt.verify(token)` would skip those options: every route verifies through this class.
 */
export class TokenService {
  private readonly cache = new Map<string, CachedClaims>();
  private readonly jwt: JwtFunctions;

  constructor(
    private readonly secret: Uint8Array,
    private readonly clock: Clock,
    private readonly cacheSize = 10_000,
  ) {
    this.jwt = jwtPlugin(secret).decorator.jwt;
  }

  async mint(req: MintRequest): Promise<Minted> {
    if (!Number.isInteger(req.ttlSeconds) || req.ttlSeconds < 1 || req.ttlSeconds > MAX_TOKEN_TTL_SECONDS)
      throw new RangeError(`a token lives 1–${MAX_TOKEN_TTL_SECONDS} seconds`);
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: Claims = {
      sub: req.sub,
      tenant_id: req.tenantId,
      roles: req.roles,
      ...(req.admin ? { admin: true } : {}),
      ...subjectClaims(req.subject, req.unscoped),
      iat,
      exp: iat + req.ttlSeconds,
      jti: ulid(this.clock.now()),
    };
    // jose's SignJWT, not the plugin's `sign`: that one stamps `iat` from the wall clock, and the
    // claims here (and their `iat`) come from the runtime's injected clock.
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(this.secret);
    return { token, claims };
  }

  async verify(raw: string): Promise<Claims> {
    const now = this.clock.now();
    const hit = this.cache.get(raw);
    if (hit) {
      if (now < hit.expiresAtMs) return hit.claims;
      this.cache.delete(raw);
      throw new Unauthorized("token expired");
    }
    const claims = await this.verifySignature(raw, now);
    this.remember(raw, claims);
    return claims;
  }

  /**
   * The claims of a token this service verified before, while its `exp` holds, without an await
   * (the request path's common case); undefined for anything else, which `verify` then decides.
   * The lookup is by the whole token text: only a byte-identical token can hit, and a hit says no
   * more than the signature check did (the secret never changes while this service lives: a new
   * secret is a new process, with an empty cache).
   */
  verified(raw: string): Claims | undefined {
    const hit = this.cache.get(raw);
    return hit && this.clock.now() < hit.expiresAtMs ? hit.claims : undefined;
  }

  private async verifySignature(raw: string, now: number): Promise<Claims> {
    const payload = await this.jwt.verify(raw, {
      algorithms: ALGORITHMS,
      requiredClaims: ["exp"],
      currentDate: new Date(now),
    });
    // The plugin answers `false` whatever failed: the token's own header and claims say why.
    if (payload === false) throw new Unauthorized(whyRefused(raw, now));
    if (!checkClaims.Check(payload)) throw new Unauthorized("token claims are malformed");
    // A token valid for longer than any this service mints was not minted for it; this also keeps
    // every `exp` a formattable date.
    if (payload.exp > now / 1000 + MAX_TOKEN_TTL_SECONDS + EXP_SKEW_SECONDS)
      throw new Unauthorized("token exp is further in the future than any token lifetime");
    checkScope(payload);
    reachOfClaims(payload);
    return payload;
  }

  private remember(raw: string, claims: Claims): void {
    // Only the canonical compact form is kept: jose's decoder tolerates variants (whitespace inside
    // a segment, padding), which are verified every time and so stay as the header parser sees them.
    if (!COMPACT_JWS.test(raw)) return;
    if (this.cache.size >= this.cacheSize) {
      // Map iterates in insertion order: drop the oldest entry.
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(raw, { claims, expiresAtMs: claims.exp * 1000 });
  }
}

function checkScope(claims: Claims): void {
  if (claims.admin === true) {
    if (claims.tenant_id !== OPERATOR_TENANT_ID)
      throw new Unauthorized("an admin token must belong to the operator tenant");
    return;
  }
  if (!ULID_RE.test(claims.tenant_id) || claims.tenant_id === OPERATOR_TENANT_ID) {
    throw new Unauthorized("token tenant_id is not a tenant ULID");
  }
}
