import { describe, expect, test } from "bun:test";
import { SecretMissing } from "../../src/errors.ts";
import { Secrets } from "../../src/secrets.ts";
import { findSource, SOURCES } from "../../src/sources/registry.ts";
import { TENANT } from "./support.ts";

describe("source registry", () => {
  test("the four specified sources, by id", () => {
    expect([...SOURCES.keys()].sort()).toEqual(["crm", "data", "mail", "marketing_crm"]);
    for (const [id, source] of SOURCES) expect(source.id).toBe(id);
    expect(findSource("crm")?.respond).toBeFunction();
    expect(findSource("payments")).toBeUndefined();
  });

  test("missing secrets are named with the tenant suffix, never with a value", () => {
    const missing = (sourceId: string, env: Record<string, string>) => {
      try {
        new Secrets(env).require(findSource(sourceId)!.requiredSecrets, TENANT);
        return [];
      } catch (error) {
        if (!(error instanceof SecretMissing)) throw error;
        expect(error.message).not.toContain("=");
        return error.variables;
      }
    };
    expect(
      missing("marketing_crm", {
        [`MARKETING_CRM_APP_ID_${TENANT}`]: "1",
        [`MARKETING_CRM_CLIENT_SECRET_${TENANT}`]: "",
      }),
    ).toEqual([`MARKETING_CRM_CLIENT_SECRET_${TENANT}`]);
    expect(missing("mail", {})).toEqual([`MAIL_PUBSUB_AUDIENCE_${TENANT}`, `MAIL_WATCH_EMAIL_${TENANT}`]);
    expect(missing("data", { [`DATA_WEBHOOK_TOKEN_${TENANT}`]: "t" })).toEqual([]);
  });
});
