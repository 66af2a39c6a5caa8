import { describe, expect, test } from "bun:test";
import { SecretMissing } from "../../src/errors/domain-errors.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { findSource, SOURCE_IDS, SOURCES } from "../../src/sources/registry.ts";
import { TENANT } from "./support.ts";

describe("source registry", () => {
  test("all 22 sources of the spec, by id", () => {
    expect([...SOURCES.keys()].sort()).toEqual([
      "analytics",
      "calendar",
      "code_host",
      "crm",
      "data",
      "esign",
      "forms",
      "helpdesk",
      "incidents",
      "issue_tracker",
      "mail",
      "marketing_crm",
      "meetings",
      "office_graph",
      "payments",
      "project_tracker",
      "scheduling",
      "standard",
      "storefront",
      "support_chat",
      "telephony",
      "warehouse",
    ]);
    for (const [id, source] of SOURCES) expect(source.id).toBe(id);
    expect(SOURCE_IDS).toEqual([...SOURCES.keys()]);
    expect(findSource("crm")?.respond).toBeFunction();
    expect(findSource("mail")?.expandsVia).toBe("mail");
    expect(findSource("nope")).toBeUndefined();
    expect(findSource("__proto__")).toBeUndefined();
  });

  test("every source names at least one required secret", () => {
    for (const source of SOURCES.values()) expect(source.requiredSecrets.length).toBeGreaterThan(0);
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
