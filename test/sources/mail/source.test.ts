import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { BadRequest } from "../../../src/errors/domain-errors.ts";
import { createJwksResolver } from "../../../src/sources/mail/jwks.ts";
import { mailSource as source } from "../../../src/sources/mail/source.ts";
import type { SourceContext } from "../../../src/sources/types.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../../fakes/mail-provider.ts";
import { context, NOW, request } from "../support.ts";

const WATCHED = "ops@example.com";
let fake: FakeMailProvider;
let ctx: SourceContext;

beforeAll(async () => {
  fake = await startFakeMailProvider({ now: () => NOW });
  ctx = context(
    { MAIL_PUBSUB_AUDIENCE: fake.audience, MAIL_WATCH_EMAIL: WATCHED },
    { jwks: createJwksResolver(fake.jwksUrl) },
  );
});

afterAll(() => fake.stop());

function push(token: string | undefined, body = fake.pushBody({ emailAddress: WATCHED, historyId: 1234 })) {
  return request(body, token === undefined ? {} : { authorization: `Bearer ${token}` });
}

async function verifyWith(token: string | undefined, c: SourceContext = ctx) {
  return source.verify(push(token), c);
}

describe("mail push token verification", () => {
  test("a token signed with the published key, for our audience, is accepted", async () => {
    expect(await verifyWith(await fake.signPushToken())).toEqual({ ok: true });
    // Both spellings of the issuer are the provider's.
    expect(await verifyWith(await fake.signPushToken({ claims: { iss: "accounts.google.com" } }))).toEqual({
      ok: true,
    });
  });

  test("a token from another key is refused, whatever kid it claims", async () => {
    expect(await verifyWith(await fake.signPushToken({ key: "other", kid: "key-1" }))).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(await verifyWith(await fake.signPushToken({ key: "other" }))).toEqual({
      ok: false,
      reason: "unknown_key",
    });
  });

  test("another audience or issuer is refused", async () => {
    expect(
      await verifyWith(await fake.signPushToken({ claims: { aud: "https://elsewhere.example.com" } })),
    ).toEqual({
      ok: false,
      reason: "audience_mismatch",
    });
    expect(
      await verifyWith(await fake.signPushToken({ claims: { iss: "https://evil.example.com" } })),
    ).toEqual({
      ok: false,
      reason: "issuer_mismatch",
    });
  });

  test("expiry has 60 s of skew; tokens may be up to an hour old", async () => {
    const s = Math.floor(NOW / 1000);
    const justExpired = await fake.signPushToken({ issuedAtMs: NOW - 600_000, claims: { exp: s - 30 } });
    expect(await verifyWith(justExpired)).toEqual({ ok: true });
    const expired = await fake.signPushToken({ issuedAtMs: NOW - 600_000, claims: { exp: s - 61 } });
    expect(await verifyWith(expired)).toEqual({ ok: false, reason: "token_expired" });
    const old = await fake.signPushToken({ issuedAtMs: NOW - 2 * 3600_000, claims: { exp: s + 600 } });
    expect(await verifyWith(old)).toEqual({ ok: false, reason: "token_too_old" });
    const future = await fake.signPushToken({ issuedAtMs: NOW + 10 * 60_000 });
    expect(await verifyWith(future)).toEqual({ ok: false, reason: "issued_in_future" });
  });

  test("email_verified must be true; a configured service account must match", async () => {
    expect(await verifyWith(await fake.signPushToken({ claims: { email_verified: false } }))).toEqual({
      ok: false,
      reason: "email_not_verified",
    });
    const strict = { ...ctx, secrets: { ...ctx.secrets, MAIL_PUBSUB_SERVICE_ACCOUNT: fake.serviceAccount } };
    expect(await verifyWith(await fake.signPushToken(), strict)).toEqual({ ok: true });
    const impostor = await fake.signPushToken({ claims: { email: "someone@else.iam.gserviceaccount.com" } });
    expect(await verifyWith(impostor, strict)).toEqual({ ok: false, reason: "service_account_mismatch" });
    expect(await verifyWith(impostor)).toEqual({ ok: true });
  });

  test("missing, malformed and non-RS256 tokens are refused", async () => {
    expect(await verifyWith(undefined)).toEqual({ ok: false, reason: "missing_token" });
    expect(await verifyWith("not.a.jwt")).toEqual({ ok: false, reason: "malformed_token" });
    expect(await verifyWith("garbage")).toEqual({ ok: false, reason: "malformed_token" });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ aud: fake.audience })).toString("base64url")}.`;
    expect(await verifyWith(unsigned)).toEqual({ ok: false, reason: "algorithm_not_allowed" });
    const hs = await new SignJWT({ aud: fake.audience, iss: "accounts.google.com", email_verified: true })
      .setProtectedHeader({ alg: "HS256", kid: "key-1" })
      .setIssuedAt(Math.floor(NOW / 1000))
      .setExpirationTime(Math.floor(NOW / 1000) + 600)
      .sign(new TextEncoder().encode("a-shared-secret-of-enough-length!!"));
    expect(await verifyWith(hs)).toEqual({ ok: false, reason: "algorithm_not_allowed" });
  });

  test("an unreachable key set is a refusal, not a crash", async () => {
    const down = { ...ctx, jwks: createJwksResolver("http://127.0.0.1:9/jwks", { timeoutMs: 500 }) };
    expect(await verifyWith(await fake.signPushToken(), down)).toEqual({
      ok: false,
      reason: "jwks_unavailable",
    });
  });
});

describe("mail key rotation", () => {
  test("an unknown kid fetches the key set again (after the cooldown) and the new key verifies", async () => {
    const rotating = await startFakeMailProvider({ now: () => NOW });
    try {
      const c = {
        ...ctx,
        secrets: { ...ctx.secrets, MAIL_PUBSUB_AUDIENCE: rotating.audience },
        jwks: createJwksResolver(rotating.jwksUrl, { cooldownMs: 0 }),
      };
      expect(await source.verify(push(await rotating.signPushToken()), c)).toEqual({ ok: true });
      expect(await source.verify(push(await rotating.signPushToken()), c)).toEqual({ ok: true });
      expect(rotating.hits.jwks).toBe(1); // cached
      await rotating.rotateKey();
      expect(await source.verify(push(await rotating.signPushToken()), c)).toEqual({ ok: true });
      expect(rotating.hits.jwks).toBe(2);
    } finally {
      rotating.stop();
    }
  });

  test("within the cooldown an unknown kid does not cause another fetch", async () => {
    const rotating = await startFakeMailProvider({ now: () => NOW });
    try {
      const c = {
        ...ctx,
        secrets: { ...ctx.secrets, MAIL_PUBSUB_AUDIENCE: rotating.audience },
        jwks: createJwksResolver(rotating.jwksUrl),
      };
      expect(await source.verify(push(await rotating.signPushToken()), c)).toEqual({ ok: true });
      for (let i = 0; i < 5; i++) {
        expect(await source.verify(push(await rotating.signPushToken({ key: "other" })), c)).toEqual({
          ok: false,
          reason: "unknown_key",
        });
      }
      expect(rotating.hits.jwks).toBe(1);
    } finally {
      rotating.stop();
    }
  });

  test("resolvers are cached per URL", () => {
    expect(createJwksResolver(fake.jwksUrl)).toBe(createJwksResolver(fake.jwksUrl));
    expect(createJwksResolver(fake.jwksUrl)).not.toBe(createJwksResolver(`${fake.jwksUrl}?v=2`));
  });
});

describe("mail parsing and mapping", () => {
  test("the push body becomes one event keyed by messageId", () => {
    const events = source.parse(
      push(undefined, fake.pushBody({ emailAddress: WATCHED, historyId: 98765 }, "msg-42")),
      ctx,
    );
    expect(events).toEqual([
      {
        event_id: "msg-42",
        event_type: "mail.notification",
        payload: {
          emailAddress: WATCHED,
          historyId: "98765",
          messageId: "msg-42",
          publishTime: "2026-11-21T09:59:58.123Z",
          subscription: "projects/p/subscriptions/memory-push",
          attributes: {},
        },
      },
    ]);
  });

  test("another mailbox is dead-lettered as mailbox_mismatch; ours needs expansion", () => {
    const ours = source.parse(
      push(undefined, fake.pushBody({ emailAddress: "OPS@example.com", historyId: 1 })),
      ctx,
    )[0]!;
    expect(source.map(ours, ctx)).toEqual({ ok: true, drafts: [], expand: true });
    const theirs = source.parse(
      push(undefined, fake.pushBody({ emailAddress: "ceo@example.com", historyId: 1 })),
      ctx,
    )[0]!;
    expect(source.map(theirs, ctx)).toEqual({ ok: false, reason: "mailbox_mismatch" });
  });

  test("bodies that are not push deliveries are bad requests", () => {
    const bodies = [
      "{}",
      '{"message": {}}',
      '{"message": {"messageId": "1", "data": "!!!"}}',
      `{"message": {"messageId": "1", "data": "${Buffer.from("not json").toString("base64")}"}}`,
      `{"message": {"messageId": "1", "data": "${Buffer.from('{"emailAddress": "a@b"}').toString("base64")}"}}`,
      `{"message": {"data": "${Buffer.from('{"emailAddress": "a@b", "historyId": 1}').toString("base64")}"}}`,
    ];
    for (const body of bodies)
      expect(() => source.parse(push(undefined, new TextEncoder().encode(body)), ctx)).toThrow(BadRequest);
  });
});
