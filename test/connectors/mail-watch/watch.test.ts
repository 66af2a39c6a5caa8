import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../../actors/connectors/mail-watch/watch-schedule.ts";
import { OPERATOR_TENANT_ID } from "../../../src/models/common.ts";
import type { MailStatus } from "../../../src/protocols/connector-protocol.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../../fakes/mail-provider.ts";
import { type Harness, startHarness } from "../../helpers/harness.ts";
import { pollUntil } from "../../helpers/poll.ts";

const EMAIL = "ops@example.com";
const TOPIC = "projects/acme/topics/mail-push";
const HOUR = 3600_000;
const clock = new ManualClock();
let fake: FakeMailProvider;
let h: Harness;
/**
 * One tenant per test, each watching its own topic: the fake counts every tenant's watch calls, and
 * the shared clock fires every started tenant's renewals, so a test reads only its own tenant's
 * calls. They are created before the clock moves days ahead (the harness's admin token lasts an hour).
 */
type Name = "fresh" | "daily" | "restart" | "shortWatch" | "failing" | "noTopic";
const tenants: Record<Name, string> = {} as never;
const topicOf = (name: Name) => `${TOPIC}-${name}`;
/** The watch calls made on this tenant's topic (the fake records a call once its token was accepted). */
const watchesOf = (name: Name) => fake.watches.filter((w) => w.topicName === topicOf(name));

beforeAll(async () => {
  fake = await startFakeMailProvider({ now: () => clock.now() });
  h = await startHarness({
    clock,
    env: {
      MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
      MAIL_API_BASE_URL: fake.apiBaseUrl,
      MAIL_PUBSUB_JWKS_URL: fake.jwksUrl,
    },
  });
  for (const name of ["fresh", "daily", "restart", "shortWatch", "noTopic"] as const)
    tenants[name] = await tenant(name);
  tenants.failing = await tenant("failing", { MAIL_REFRESH_TOKEN: "revoked-refresh-token" });
  delete h.env[`MAIL_PUBSUB_TOPIC_${tenants.noTopic}`];
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

const until = <T>(probe: () => T | Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 4000 });

async function tenant(name: Name, overrides: Record<string, string> = {}): Promise<string> {
  const { tenant_id: t } = await h.createTenant();
  const values: Record<string, string> = {
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_PUBSUB_TOPIC: topicOf(name),
    MAIL_WATCH_EMAIL: EMAIL,
    ...overrides,
  };
  for (const [k, v] of Object.entries(values)) h.env[`${k}_${t}`] = v;
  return t;
}

async function mailStatus(t: string): Promise<MailStatus | undefined> {
  const { token } = await h.runtime.services.tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 3600,
  });
  const { status, body } = await h.json("GET", `/tenants/${t}/healthz`, { token });
  expect(status).toBe(200);
  return body.connectors.mail;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Starts a tenant's watch as a first run does (no watch stored): one call on its topic. */
async function startWatch(name: Name): Promise<string> {
  const calls = watchesOf(name).length;
  const { mail } = await h.runtime.startConnectorsFor(tenants[name]);
  expect(mail?.state).toBe("active");
  expect(watchesOf(name)).toHaveLength(calls + 1);
  return tenants[name];
}

describe("mail watch", () => {
  test("starts a watch on the tenant's topic when none is stored, and health shows it", async () => {
    const t = tenants.fresh;
    const { mail } = await h.runtime.startConnectorsFor(t);
    // A tenant no other test starts: this is its only watch call.
    expect(watchesOf("fresh")).toEqual([{ email: EMAIL, topicName: topicOf("fresh") }]);
    const now = clock.now();
    const expected = {
      state: "active",
      email: EMAIL,
      topic: topicOf("fresh"),
      expiration: iso(now + 7 * DAY_MS),
      last_renewed_at: iso(now),
      next_renewal_at: iso(now + DAY_MS),
      history_id: fake.historyId,
      last_error: null,
    };
    expect(mail).toMatchObject(expected);
    expect(await mailStatus(t)).toMatchObject(expected);
  });

  test("renews daily, through the clock", async () => {
    const t = await startWatch("daily");
    const calls = watchesOf("daily").length;
    clock.advance(DAY_MS - 1);
    // Starting again is a barrier: it runs after any renewal the advance queued, and finds the watch live.
    await h.runtime.startConnectorsFor(t);
    expect(watchesOf("daily")).toHaveLength(calls);
    clock.advance(1);
    await until(
      () => watchesOf("daily").length,
      (n) => n === calls + 1,
    );
    const status = await until(
      () => mailStatus(t),
      (s) => s?.last_renewed_at === iso(clock.now()),
    );
    expect(status).toMatchObject({ state: "active", expiration: iso(clock.now() + 7 * DAY_MS) });
  });

  test("after a restart a live stored watch is kept (no new call) and its renewal still happens", async () => {
    // The watch is stored by the run before the restart.
    const t = await startWatch("restart");
    await h.restart();
    const calls = watchesOf("restart").length;
    const { mail } = await h.runtime.startConnectorsFor(t);
    expect(mail?.state).toBe("active");
    expect(watchesOf("restart")).toHaveLength(calls);
    clock.advance(DAY_MS);
    await until(
      () => watchesOf("restart").length,
      (n) => n === calls + 1,
    );
  });

  test("a watch that expires within the day is renewed an hour before its expiry", async () => {
    const u = tenants.shortWatch;
    // A watch stored by an earlier run, expiring in three hours.
    const expiration = clock.now() + 3 * HOUR;
    await h.runtime.services.tenant(u).ask({
      type: "connector.state.put",
      key: "mail:watch",
      value: { historyId: "900", expiration, renewedAt: clock.now() - HOUR },
    });
    const calls = watchesOf("shortWatch").length;
    const { mail } = await h.runtime.startConnectorsFor(u);
    expect(mail).toMatchObject({ state: "active", next_renewal_at: iso(expiration - HOUR) });
    expect(watchesOf("shortWatch")).toHaveLength(calls);
    clock.advance(2 * HOUR - 1);
    await h.runtime.startConnectorsFor(u);
    expect(watchesOf("shortWatch")).toHaveLength(calls);
    clock.advance(1);
    await until(
      () => watchesOf("shortWatch").length,
      (n) => n === calls + 1,
    );
    await until(
      () => mailStatus(u),
      (s) => s?.expiration === iso(clock.now() + 7 * DAY_MS),
    );
  });

  test("a failed watch call is retried with backoff, and health shows the error meanwhile", async () => {
    const u = tenants.failing;
    const { mail } = await h.runtime.startConnectorsFor(u);
    expect(mail).toMatchObject({ state: "retrying" });
    expect(mail!.last_error).toBe("watch failed: 400 (token exchange: answered 400 (invalid_grant))");
    expect(Date.parse(mail!.next_renewal_at!) - clock.now()).toBeLessThanOrEqual(1000);
    expect((await mailStatus(u))!.state).toBe("retrying");
    h.env[`MAIL_REFRESH_TOKEN_${u}`] = fake.refreshToken;
    clock.advance(1000);
    await until(
      () => mailStatus(u),
      (s) => s?.state === "active",
    );
    expect(watchesOf("failing")).toHaveLength(1);
    expect((await mailStatus(u))!.last_error).toBeNull();
  });

  test("without a topic the watch does not start", async () => {
    expect(await h.runtime.startConnectorsFor(tenants.noTopic)).toEqual({});
  });
});
