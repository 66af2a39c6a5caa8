/**
 * Credentials the fuzz sends: valid tokens of several roles and tenants (minted by the server's own
 * admin API), and malformed tokens of every shape (test/helpers/jwt.ts crafts them): wrong segment
 * counts, `alg` none or a lie, another secret, no or wrong-typed `exp`, claims of the wrong type,
 * prototype keys, an admin claim on a tenant token, a tenant that does not exist, oversized tokens,
 * tampered signatures, and broken `Authorization` headers.
 */
import { b64url, craftJwt, nowSeconds } from "../helpers/jwt.ts";

export interface Credential {
  name: string;
  /** The whole `Authorization` header value (absent: none sent). */
  authorization?: string;
  /** The dashboard's admin cookie value. */
  cookie?: string;
}

export interface TokenFacts {
  secret: string;
  /** A tenant that exists (claims naming it get past the tenant check). */
  tenantId: string;
  /** A well-formed ULID no tenant has. */
  unknownTenantId: string;
  operatorId: string;
}

const HS256 = { alg: "HS256", typ: "JWT" };

/** Tokens signed with the right secret and wrong claims, or wrong in their form. */
export function malformedTokens(f: TokenFacts): Record<string, string> {
  const now = nowSeconds();
  const claims = { sub: "fuzz", tenant_id: f.tenantId, roles: ["tenant_admin"], iat: now, exp: now + 600 };
  const signed = (payload: Record<string, unknown>, header: Record<string, unknown> = HS256) =>
    craftJwt(header, payload, f.secret);
  const good = signed(claims);
  const [h, p, s] = good.split(".") as [string, string, string];
  const flipped = `${s.slice(0, -2)}${s.endsWith("AA") ? "BB" : "AA"}`;
  const rawPayload = (text: string) => `${h}.${b64url(text)}.${s}`;
  return {
    empty: "",
    oneSegment: "abc",
    twoSegments: `${h}.${p}`,
    fourSegments: `${good}.extra`,
    dots: "..",
    algNone: craftJwt({ alg: "none", typ: "JWT" }, claims, undefined),
    algNoneSigned: signed(claims, { alg: "none" }),
    algHs512Lie: signed(claims, { alg: "HS512", typ: "JWT" }),
    algRs256Lie: signed(claims, { alg: "RS256", typ: "JWT" }),
    algEmpty: signed(claims, { alg: "" }),
    headerNotJson: `${b64url("not json")}.${p}.${s}`,
    headerArray: signed(claims, [] as unknown as Record<string, unknown>),
    payloadNotJson: rawPayload("{not json"),
    payloadArray: signed([] as unknown as Record<string, unknown>),
    payloadNull: rawPayload("null"),
    payloadString: rawPayload('"admin"'),
    otherSecret: craftJwt(HS256, claims, "another-secret-that-is-also-32-bytes-long!!"),
    noExp: signed({ ...claims, exp: undefined }),
    expired: signed({ ...claims, exp: now - 3600 }),
    expString: signed({ ...claims, exp: String(now + 600) }),
    expHuge: signed({ ...claims, exp: 1e308 }),
    expNegative: signed({ ...claims, exp: -1 }),
    expFloat: signed({ ...claims, exp: now + 600.5 }),
    iatFuture: signed({ ...claims, iat: now + 86_400 * 365 }),
    nbfFuture: signed({ ...claims, nbf: now + 86_400 }),
    noSub: signed({ ...claims, sub: undefined }),
    subHuge: signed({ ...claims, sub: "s".repeat(20_000) }),
    subNul: signed({ ...claims, sub: "a\u0000b\ud800" }),
    subObject: signed({ ...claims, sub: { toString: "x" } }),
    rolesString: signed({ ...claims, roles: "tenant_admin" }),
    rolesNumbers: signed({ ...claims, roles: [1, 2, null] }),
    rolesHuge: signed({ ...claims, roles: Array.from({ length: 2_000 }, (_, i) => `role-${i}`) }),
    rolesUnknown: signed({ ...claims, roles: ["ghost", "__proto__", "constructor"] }),
    tenantMissing: signed({ ...claims, tenant_id: undefined }),
    tenantMalformed: signed({ ...claims, tenant_id: "../../etc/passwd" }),
    tenantUnknown: signed({ ...claims, tenant_id: f.unknownTenantId }),
    tenantIsOperatorWithoutAdmin: signed({ ...claims, tenant_id: f.operatorId }),
    adminOnTenant: signed({ ...claims, admin: true }),
    adminString: signed({ ...claims, admin: "true", tenant_id: f.operatorId }),
    adminNumber: signed({ ...claims, admin: 1, tenant_id: f.operatorId }),
    protoAdmin: rawPayload(
      `{"sub":"fuzz","tenant_id":"${f.tenantId}","roles":[],"exp":${now + 600},"__proto__":{"admin":true}}`,
    ),
    duplicateClaims: rawPayload(
      `{"sub":"fuzz","tenant_id":"${f.operatorId}","tenant_id":"${f.tenantId}","admin":false,"admin":true,"exp":${now + 600}}`,
    ),
    tamperedSignature: `${h}.${p}.${flipped}`,
    noSignature: `${h}.${p}.`,
    paddedBase64: `${h}==.${p}.${s}`,
    standardBase64: `${h}.${p.replace(/-/g, "+").replace(/_/g, "/")}.${s}`,
    hugeToken: `${h}.${b64url("x".repeat(120_000))}.${s}`,
    latin1Bytes: `${good}\u00ff`,
  };
}

/** `Authorization` headers that are not a well-formed bearer of a token. */
function brokenHeaders(good: string): Credential[] {
  return [
    { name: "bearerOnly", authorization: "Bearer" },
    { name: "bearerSpace", authorization: "Bearer " },
    { name: "basic", authorization: "Basic dXNlcjpwYXNzd29yZA==" },
    { name: "noScheme", authorization: good },
    { name: "twoTokens", authorization: `Bearer ${good} ${good}` },
    { name: "lowercaseScheme", authorization: `bearer ${good}` },
    { name: "tabSeparated", authorization: `Bearer\t${good}` },
    { name: "cookieOnPost", cookie: good },
    { name: "cookieGarbage", cookie: "%00%ff" },
  ];
}

/** Every malformed credential: the crafted tokens as bearers, and broken headers. */
export function badCredentials(f: TokenFacts, good: string): Credential[] {
  const tokens = Object.entries(malformedTokens(f)).map(([name, token]) => ({
    name: `bad:${name}`,
    authorization: `Bearer ${token}`,
  }));
  return [...tokens, ...brokenHeaders(good).map((c) => ({ ...c, name: `bad:${c.name}` }))];
}
