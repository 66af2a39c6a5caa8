import { describe, expect, test } from "bun:test";
import { findSource, missingSecrets, SOURCES } from "../../src/sources/registry.ts";
import { TENANT } from "./support.ts";

describe("source registry", () => {
  test("the four specified sources, by id", () => {
    expect([...SOURCES.keys()].sort()).toEqual(["crm", "data", "mail", "marketing_crm"]);
    for (const [id, source] of SOURCES) expect(source.id).toBe(id);
    expect(findSource("crm")?.respond).toBeFunction();
    expect(findSource("payments")).toBeUndefined();
  });

  test("missing secrets are named with the tenant suffix", () => {
    const source = findSource("marketing_crm")!;
    expect(
      missingSecrets(source, { MARKETING_CRM_APP_ID: "1", MARKETING_CRM_CLIENT_SECRET: "" }, TENANT),
    ).toEqual([`MARKETING_CRM_CLIENT_SECRET_${TENANT}`]);
    expect(missingSecrets(findSource("mail")!, {}, TENANT)).toEqual([
      `MAIL_PUBSUB_AUDIENCE_${TENANT}`,
      `MAIL_WATCH_EMAIL_${TENANT}`,
    ]);
    expect(missingSecrets(findSource("data")!, { DATA_WEBHOOK_TOKEN: "t" }, TENANT)).toEqual([]);
  });
});
