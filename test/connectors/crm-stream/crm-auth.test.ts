import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { decodeJwt, decodeProtectedHeader } from "jose";
import {
  ASSERTION_LIFETIME_S,
  CrmAuthError,
  CrmJwtBearerClient,
  decodePrivateKey,
} from "../../../actors/connectors/crm-stream/crm-auth.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { crmKeyPair, type FakeCrmPlatform, startFakeCrmPlatform } from "../../fakes/crm-platform.ts";

const clock = new ManualClock();
const keys = crmKeyPair();
let fake: FakeCrmPlatform;

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, clock });
});
afterAll(() => fake.stop());

function client(overrides: Partial<ConstructorParameters<typeof CrmJwtBearerClient>[0]> = {}) {
  return new CrmJwtBearerClient({
    clientId: fake.clientId,
    username: fake.username,
    audience: fake.url,
    privateKeyPem: keys.privateKeyBase64,
    clock,
    ...overrides,
  });
}

describe("CRM JWT bearer flow", () => {
  test("the assertion is RS256 with iss, sub, aud and exp = now + 3 min", async () => {
    const assertion = await client().assertion();
    expect(decodeProtectedHeader(assertion).alg).toBe("RS256");
    const claims = decodeJwt(assertion);
    expect(claims).toMatchObject({ iss: fake.clientId, sub: fake.username, aud: fake.url });
    expect(claims.exp).toBe(Math.floor(clock.now() / 1000) + ASSERTION_LIFETIME_S);
    expect(ASSERTION_LIFETIME_S).toBe(180);
  });

  test("exchanges a signed assertion for an access token, and caches it", async () => {
    const auth = client();
    const before = fake.hits.token;
    const first = await auth.token();
    expect(first.accessToken).toStartWith("00Dxx!fake-");
    expect(first.instanceUrl).toBe(fake.url);
    expect((await auth.token()).accessToken).toBe(first.accessToken);
    expect(fake.hits.token).toBe(before + 1);
  });

  test("after invalidate (a 401 elsewhere) a fresh assertion is signed", async () => {
    const auth = client();
    const first = await auth.token();
    auth.invalidate();
    const second = await auth.token();
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(auth.assertions).toBe(2);
    const [a, b] = fake.assertions.slice(-2);
    expect(a).not.toBe(b);
  });

  test("a key the platform does not know is refused with the status and OAuth code", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    const error = await client({ privateKeyPem: Buffer.from(other).toString("base64") })
      .token()
      .catch((e) => e);
    expect(error).toBeInstanceOf(CrmAuthError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("token endpoint answered 400 (invalid_grant)");
    expect(fake.refusedAssertions.at(-1)).toContain("signature");
  });

  test("a wrong audience or an expired assertion is refused", async () => {
    // A trailing slash is not a different audience.
    expect((await client({ audience: `${fake.url}/` }).token()).accessToken).toStartWith("00Dxx!");
    const wrongAud = await client({ audience: fake.url.replace("127.0.0.1", "localhost") })
      .token()
      .catch((e) => e);
    expect(wrongAud).toBeInstanceOf(CrmAuthError);
    expect(fake.refusedAssertions.at(-1)).toContain("aud");
    const late = new ManualClock(clock.now() - 10 * 60_000);
    const expired = await client({ clock: late })
      .token()
      .catch((e) => e);
    expect(expired).toBeInstanceOf(CrmAuthError);
    expect(expired.status).toBe(400);
  });

  test("a 401 from the token endpoint is reported as such", async () => {
    fake.rejectTokenRequests = 1;
    const error = await client()
      .token()
      .catch((e) => e);
    expect(error).toBeInstanceOf(CrmAuthError);
    expect(error.status).toBe(401);
  });

  test("a 429 or 503 from the token endpoint carries its Retry-After; other refusals none", async () => {
    const path = "/services/oauth2/token";
    fake.faults.next(path, 1, { kind: "status", status: 429, retryAfter: 3 });
    fake.faults.next(path, 1, { kind: "status", status: 503, retryAfter: 30 });
    fake.faults.next(path, 1, { kind: "status", status: 500, retryAfter: 30 });
    const errors = [];
    for (let i = 0; i < 3; i++)
      errors.push(
        await client()
          .token()
          .catch((e) => e),
      );
    expect(errors.map((e) => [e.status, e.retryAfterMs])).toEqual([
      [429, 3000],
      [503, 30_000],
      [500, undefined],
    ]);
    expect(errors[0].message).toBe("token endpoint answered 429");
  });

  test("an unreachable endpoint is status 0, with no secret in the message", async () => {
    const error = await client({ audience: "http://127.0.0.1:1" })
      .token()
      .catch((e) => e);
    expect(error).toBeInstanceOf(CrmAuthError);
    expect(error.status).toBe(0);
    expect(error.message).not.toContain("PRIVATE");
  });

  test("CRM_PRIVATE_KEY must be a base64 PEM RSA key (a bare PEM and PKCS#1 are accepted)", () => {
    expect(decodePrivateKey(keys.privateKeyBase64).asymmetricKeyType).toBe("rsa");
    expect(decodePrivateKey(keys.privateKeyPem).asymmetricKeyType).toBe("rsa");
    const pkcs1 = decodePrivateKey(keys.privateKeyPem).export({ type: "pkcs1", format: "pem" }).toString();
    expect(decodePrivateKey(Buffer.from(pkcs1).toString("base64")).asymmetricKeyType).toBe("rsa");
    expect(() => decodePrivateKey("bm90IGEga2V5")).toThrow("not a base64-encoded PEM private key");
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    expect(() => decodePrivateKey(Buffer.from(ec).toString("base64"))).toThrow(
      "not a readable RSA private key",
    );
  });
});
