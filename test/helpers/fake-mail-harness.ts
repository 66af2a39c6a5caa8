/**
 * A harness whose mail source talks to a fake mail provider (test/fakes/mail-provider.ts), both on
 * the test's clock: started before the file's tests, stopped after them.
 */
import { afterAll, beforeAll } from "bun:test";
import type { ManualClock } from "../../src/runtime/clock.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { type Harness, startHarness } from "./harness.ts";

export interface FakeMailHarness {
  h: Harness;
  fake: FakeMailProvider;
}

/** Read its fields inside the tests: they are set once `beforeAll` has run. */
export function fakeMailHarness(clock: ManualClock): FakeMailHarness {
  const env = {} as FakeMailHarness;
  beforeAll(async () => {
    env.fake = await startFakeMailProvider({ now: () => clock.now() });
    env.h = await startHarness({
      clock,
      env: {
        MAIL_OAUTH_TOKEN_URL: env.fake.tokenUrl,
        MAIL_API_BASE_URL: env.fake.apiBaseUrl,
        MAIL_PUBSUB_JWKS_URL: env.fake.jwksUrl,
      },
    });
  });
  afterAll(async () => {
    await env.h.close();
    env.fake.stop();
  });
  return env;
}

/** The secrets a tenant's mail source needs to read the fake's mailbox `email` and take its pushes. */
export function fakeMailSecrets(fake: FakeMailProvider, email: string): Record<string, string> {
  return {
    MAIL_PUBSUB_AUDIENCE: fake.audience,
    MAIL_WATCH_EMAIL: email,
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_PUBSUB_TOPIC: "projects/acme/topics/mail",
  };
}
