import { describe, expect, test } from "bun:test";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { jwtPlugin, TokenService } from "../../src/auth/tokens.ts";
import { Unauthorized } from "../../src/errors/domain-errors.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { MAX_TOKEN_TTL_SECONDS } from "../../src/models/role.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { craftJwt } from "../helpers/jwt.ts";

const SECRET = "unit-test-secret-that-is-long-enough-0123456789";
const key = new TextEncoder().encode(SECRET);
const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

function service(clock = new ManualClock(), cacheSize?: number) {
  return new TokenService(key, clock, cacheSize);
}

async function rejects(promise: Promise<unknown>, detail?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Unauthorized);
  if (detail) expect((error as Error).message).toMatch(detail);
}

describe("TokenService", () => {
  test("mints HS256 tokens with every contract claim, which verify back", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const { token, claims } = await tokens.mint({
      sub: "agent-7",
      tenantId: TENANT,
      roles: ["agent"],
      ttlSeconds: 900,
    });
    const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString());
    expect(header.alg).toBe("HS256");
    expect(claims).toMatchObject({ sub: "agent-7", tenant_id: TENANT, roles: ["agent"] });
    expect(claims.admin).toBeUndefined();
    expect(claims.iat).toBe(Math.floor(clock.now() / 1000));
    expect(claims.exp).toBe(claims.iat! + 900);
    expect(claims.jti).toMatch(/^[0-9A-Z]{26}$/);
    expect(await tokens.verify(token)).toEqual(claims);
  });

  test("every minted token has its own jti", async () => {
    const tokens = service();
    const a = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    const b = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    expect(a.claims.jti).not.toBe(b.claims.jti);
    expect(a.token).not.toBe(b.token);
  });

  test("a cache hit returns the same claims object", async () => {
    const tokens = service();
    const { token } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: ["r"], ttlSeconds: 60 });
    const first = await tokens.verify(token);
    const second = await tokens.verify(token);
    expect(second).toBe(first);
  });

  test("a cached token is refused once its exp has passed", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const { token, claims } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    await tokens.verify(token); // now cached
    clock.advance(claims.exp * 1000 - clock.now() - 1);
    expect((await tokens.verify(token)).sub).toBe("x");
    clock.advance(1);
    await rejects(tokens.verify(token), /expired/);
    // And it stays refused (not re-admitted through the signature path).
    await rejects(tokens.verify(token), /expired/);
  });

  test("a token verified for the first time after its exp is refused", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const { token } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    clock.advance(61_000);
    await rejects(tokens.verify(token), /expired/);
  });

  test("the cache is bounded: the oldest entry is evicted", async () => {
    const tokens = service(new ManualClock(), 2);
    const minted = await Promise.all(
      ["a", "b", "c"].map((sub) => tokens.mint({ sub, tenantId: TENANT, roles: [], ttlSeconds: 60 })),
    );
    const first = await tokens.verify(minted[0]!.token);
    const second = await tokens.verify(minted[1]!.token);
    await tokens.verify(minted[2]!.token); // evicts a
    expect(await tokens.verify(minted[1]!.token)).toBe(second); // b still cached
    const again = await tokens.verify(minted[0]!.token);
    expect(again).toEqual(first);
    expect(again).not.toBe(first); // a was re-verified, not served from the cache
    expect((tokens as unknown as { cache: Map<string, unknown> }).cache.size).toBeLessThanOrEqual(2);
  });

  test("the cache never grows past its bound", async () => {
    const tokens = service(new ManualClock(), 5);
    for (let i = 0; i < 20; i++) {
      const { token } = await tokens.mint({ sub: `s${i}`, tenantId: TENANT, roles: [], ttlSeconds: 60 });
      await tokens.verify(token);
    }
    expect((tokens as unknown as { cache: Map<string, unknown> }).cache.size).toBe(5);
  });

  test("refuses tokens without exp, with alg none, another alg, or another secret", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const iat = Math.floor(clock.now() / 1000);
    const base = { sub: "x", tenant_id: TENANT, roles: [] as string[] };
    await rejects(
      tokens.verify(await new SignJWT(base).setProtectedHeader({ alg: "HS256" }).setIssuedAt(iat).sign(key)),
    );
    await rejects(tokens.verify(new UnsecuredJWT({ ...base, exp: iat + 60 }).encode()));
    await rejects(
      tokens.verify(craftJwt({ alg: "none", typ: "JWT" }, { ...base, exp: iat + 60 }, undefined)),
    );
    await rejects(
      tokens.verify(
        await new SignJWT({ ...base, exp: iat + 60 }).setProtectedHeader({ alg: "HS512" }).sign(key),
      ),
      /algorithm/,
    );
    await rejects(
      tokens.verify(
        craftJwt({ alg: "HS256" }, { ...base, exp: iat + 60 }, "another-secret-that-is-long-enough-000000"),
      ),
      /signature/,
    );
  });

  test("HS256 only: HS384, HS512, RS256, ES256 and none are refused, even over valid claims", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const claims = {
      sub: "x",
      tenant_id: TENANT,
      roles: [] as string[],
      exp: Math.floor(clock.now() / 1000) + 60,
    };
    const rsa = await generateKeyPair("RS256");
    const ec = await generateKeyPair("ES256");
    const signed = [
      await new SignJWT(claims).setProtectedHeader({ alg: "HS384" }).sign(key),
      await new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(key),
      await new SignJWT(claims).setProtectedHeader({ alg: "RS256" }).sign(rsa.privateKey),
      await new SignJWT(claims).setProtectedHeader({ alg: "ES256" }).sign(ec.privateKey),
      new UnsecuredJWT(claims).encode(),
    ];
    for (const token of signed) await rejects(tokens.verify(token), /algorithm not allowed \(HS256 only\)/);
    // The same claims signed HS256 are accepted: the algorithm alone was refused.
    const good = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(key);
    expect((await tokens.verify(good)).sub).toBe("x");
  });

  test("each refusal says why: no exp, expired, another secret, malformed", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const now = Math.floor(clock.now() / 1000);
    const base = { sub: "x", tenant_id: TENANT, roles: [] };
    const sign = (payload: Record<string, unknown>, secret = SECRET) =>
      craftJwt({ alg: "HS256", typ: "JWT" }, payload, secret);
    await rejects(tokens.verify(sign(base)), /^token claim missing: exp$/);
    await rejects(tokens.verify(sign({ ...base, exp: now })), /^token expired$/);
    await rejects(
      tokens.verify(sign({ ...base, exp: now + 60 }, `${SECRET}-other`)),
      /^token signature invalid$/,
    );
    await rejects(tokens.verify("not-a-jwt"), /^token malformed$/);
  });

  test("the plugin alone would accept HS512 and a token without exp: TokenService's options refuse both", async () => {
    // Why verification wraps @elysiajs/jwt (docs/auth.md): its bare verify() trusts the header's alg.
    const { jwt } = jwtPlugin(key).decorator;
    const clock = new ManualClock();
    const now = Math.floor(clock.now() / 1000);
    const hs512 = await new SignJWT({ sub: "x", tenant_id: TENANT, roles: [], exp: now + 60 })
      .setProtectedHeader({ alg: "HS512" })
      .sign(key);
    const noExp = craftJwt({ alg: "HS256" }, { sub: "x", tenant_id: TENANT, roles: [] }, SECRET);
    expect(await jwt.verify(hs512, { currentDate: new Date(clock.now()) })).not.toBe(false);
    expect(await jwt.verify(noExp)).not.toBe(false);
    const tokens = service(clock);
    await rejects(tokens.verify(hs512), /algorithm/);
    await rejects(tokens.verify(noExp), /exp/);
  });

  test("a repeated token is served from the cache: the plugin verifies it once", async () => {
    const tokens = service();
    const { token } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    const plugin = (tokens as unknown as { jwt: { verify: (...args: unknown[]) => Promise<unknown> } }).jwt;
    const verify = plugin.verify;
    let calls = 0;
    plugin.verify = (...args) => {
      calls++;
      return verify(...args);
    };
    for (let i = 0; i < 5; i++) expect((await tokens.verify(token)).sub).toBe("x");
    expect(calls).toBe(1);
  });

  test("caps exp: beyond the longest token lifetime, or past the last date, is refused and never cached", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const now = Math.floor(clock.now() / 1000);
    const sign = (exp: number) =>
      craftJwt({ alg: "HS256", typ: "JWT" }, { sub: "x", tenant_id: TENANT, roles: [], exp }, SECRET);
    expect((await tokens.verify(sign(now + MAX_TOKEN_TTL_SECONDS))).exp).toBe(now + MAX_TOKEN_TTL_SECONDS);
    await rejects(tokens.verify(sign(now + MAX_TOKEN_TTL_SECONDS + 3600)), /exp/);
    await rejects(tokens.verify(sign(9e12)));
    await rejects(tokens.verify(sign(Number.MAX_VALUE)));
    expect((tokens as unknown as { cache: Map<string, unknown> }).cache.size).toBe(1);
  });

  test("minting refuses a lifetime outside 1 s to the longest token lifetime", async () => {
    const tokens = service();
    for (const ttlSeconds of [0, -5, 1.5, MAX_TOKEN_TTL_SECONDS + 1, Number.POSITIVE_INFINITY]) {
      await expect(tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds })).rejects.toThrow(
        RangeError,
      );
    }
  });

  test("refuses malformed tokens and malformed claims", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const exp = Math.floor(clock.now() / 1000) + 60;
    await rejects(tokens.verify("not-a-jwt"));
    await rejects(tokens.verify("a.b.c"));
    await rejects(tokens.verify(""));
    const sign = (payload: Record<string, unknown>) =>
      craftJwt({ alg: "HS256", typ: "JWT" }, payload, SECRET);
    await rejects(tokens.verify(sign({ tenant_id: TENANT, roles: [], exp })), /claims/); // no sub
    await rejects(tokens.verify(sign({ sub: "x", tenant_id: TENANT, roles: "agent", exp })), /claims/);
    await rejects(tokens.verify(sign({ sub: "x", tenant_id: TENANT, roles: [], exp: String(exp) })));
    await rejects(
      tokens.verify(sign({ sub: "x", tenant_id: TENANT, roles: [], exp, admin: "true" })),
      /claims/,
    );
  });

  test("admin tokens belong to the operator tenant; tenant tokens to a tenant ULID", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const exp = Math.floor(clock.now() / 1000) + 60;
    const sign = (payload: Record<string, unknown>) =>
      craftJwt({ alg: "HS256", typ: "JWT" }, payload, SECRET);
    expect(
      (await tokens.verify(sign({ sub: "op", tenant_id: OPERATOR_TENANT_ID, roles: [], admin: true, exp })))
        .admin,
    ).toBe(true);
    await rejects(tokens.verify(sign({ sub: "op", tenant_id: TENANT, roles: [], admin: true, exp })));
    await rejects(tokens.verify(sign({ sub: "x", tenant_id: OPERATOR_TENANT_ID, roles: [], exp })));
    await rejects(tokens.verify(sign({ sub: "x", tenant_id: "../../etc", roles: [], exp })));
    await rejects(tokens.verify(sign({ sub: "x", tenant_id: TENANT.toLowerCase(), roles: [], exp })));
  });

  test("a signature-valid token is checked again after a refused cache miss (no negative caching of good tokens)", async () => {
    const tokens = service();
    const { token } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    const tampered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    await rejects(tokens.verify(tampered));
    expect((await tokens.verify(token)).sub).toBe("x");
  });

  test("`verified` answers only a token verified before and still within its exp, without checking anything itself", async () => {
    const clock = new ManualClock();
    const tokens = service(clock);
    const { token, claims } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    expect(tokens.verified(token)).toBeUndefined(); // minted is not verified
    const checked = await tokens.verify(token);
    expect(tokens.verified(token)).toBe(checked);
    clock.advance(claims.exp * 1000 - clock.now() - 1);
    expect(tokens.verified(token)).toBe(checked);
    clock.advance(1);
    expect(tokens.verified(token)).toBeUndefined();
    await rejects(tokens.verify(token), /expired/);
  });

  test("a token signed with another secret never hits another service's cache (a new secret is a new service)", async () => {
    const first = service();
    const { token } = await first.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    await first.verify(token);
    const rotated = new TokenService(
      new TextEncoder().encode("rotated-secret-that-is-long-enough-0123456789"),
      new ManualClock(),
    );
    expect(rotated.verified(token)).toBeUndefined();
    await rejects(rotated.verify(token), /signature/);
  });

  test("only the canonical compact form is cached: variants jose tolerates are verified every time", async () => {
    const tokens = service();
    const { token } = await tokens.mint({ sub: "x", tenantId: TENANT, roles: [], ttlSeconds: 60 });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const variants = [
      `${token}=`,
      `${header}.${payload}.${signature.slice(0, 5)} ${signature.slice(5)}`,
      `${token}\n`,
    ];
    for (const variant of variants) {
      const first = await tokens.verify(variant);
      expect(first.sub).toBe("x");
      expect(tokens.verified(variant)).toBeUndefined();
      expect(await tokens.verify(variant)).not.toBe(first);
    }
    expect(tokens.verified(token)).toBeUndefined();
    await tokens.verify(token);
    expect(tokens.verified(token)).toBeDefined();
  });
});
