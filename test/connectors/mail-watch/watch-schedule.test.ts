import { describe, expect, test } from "bun:test";
import {
  DAY_MS,
  nextRenewalAt,
  RENEW_MARGIN_MS,
  watchIsLive,
} from "../../../actors/connectors/mail-watch/watch-schedule.ts";

describe("watch renewal schedule", () => {
  const t0 = Date.UTC(2026, 10, 21);

  test("daily while the watch has days left", () => {
    expect(nextRenewalAt({ historyId: "1", renewedAt: t0, expiration: t0 + 7 * DAY_MS })).toBe(t0 + DAY_MS);
  });

  test("an hour before expiry when that comes first", () => {
    const expiration = t0 + 5 * 3600_000;
    expect(nextRenewalAt({ historyId: "1", renewedAt: t0, expiration })).toBe(expiration - RENEW_MARGIN_MS);
  });

  test("a watch within the margin of its expiry is not live", () => {
    const watch = { historyId: "1", renewedAt: t0, expiration: t0 + 7 * DAY_MS };
    expect(watchIsLive(watch, t0)).toBe(true);
    expect(watchIsLive(watch, watch.expiration - RENEW_MARGIN_MS)).toBe(false);
    expect(watchIsLive(undefined, t0)).toBe(false);
  });
});
