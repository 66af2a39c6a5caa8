/**
 * The secrets a leak run plants: a distinctive value in every per-tenant secret variable of the 22
 * webhook sources and of the two connectors (docs/webhooks.md, docs/connectors.md), for a tenant whose
 * platforms sign with them (A) and one whose values match nothing (B). Variables that hold an
 * identifier rather than a credential (an app id, a mailbox, an audience, a username, a URL) are
 * set too, but are not secrets: they may be shown (a health page names the mailbox it watches).
 */
import { randomBytes } from "node:crypto";
import type { crmKeyPair, FakeCrmPlatform } from "../fakes/crm-platform.ts";
import type { FakeMailProvider } from "../fakes/mail-provider.ts";
import { SENDERS } from "../fakes/senders/all.ts";
import { CRM_ORG } from "./deliveries.ts";
import type { Planted } from "./leak-scan.ts";

/** A distinctive value no code or fixture contains: `<label>-<random hex>`. */
export const distinctive = (label: string, bytes = 18): string =>
  `${label}-${randomBytes(bytes).toString("hex")}`;

/** Base names holding credentials (everything else set for a tenant is an identifier). */
export const SECRET_BASES = new Set([
  ...SENDERS.flatMap((s) => Object.keys(s.secrets)),
  "MARKETING_CRM_CLIENT_SECRET",
  "DATA_WEBHOOK_TOKEN",
  "CRM_WEBHOOK_SECRET",
  "MAIL_CLIENT_SECRET",
  "MAIL_REFRESH_TOKEN",
  "CRM_PRIVATE_KEY",
]);

export interface TenantSecrets {
  /** Base name → value, every variable the tenant has. */
  values: Record<string, string>;
}

/** Identifiers and endpoints both tenants need, from the fakes. */
function identifiers(
  mail: FakeMailProvider,
  crm: FakeCrmPlatform,
  watchEmail: string,
): Record<string, string> {
  return {
    MARKETING_CRM_APP_ID: "731994",
    CRM_ORG_ID: CRM_ORG,
    MAIL_PUBSUB_AUDIENCE: mail.audience,
    MAIL_PUBSUB_SERVICE_ACCOUNT: mail.serviceAccount,
    MAIL_WATCH_EMAIL: watchEmail,
    MAIL_CLIENT_ID: mail.clientId,
    MAIL_PUBSUB_TOPIC: "projects/leak-test/topics/mail",
    CRM_CLIENT_ID: crm.clientId,
    CRM_USERNAME: crm.username,
    CRM_INSTANCE_URL: crm.url,
    CRM_STREAM_URL: crm.streamUrl,
  };
}

/**
 * Tenant A: the kit sources' secrets are the ones their fake senders sign with; the other secrets
 * are fresh, and the fakes are told them (the mail provider checks its client secret and refresh
 * token, the CRM platform the key's signature).
 */
export function tenantASecrets(
  mail: FakeMailProvider,
  crm: FakeCrmPlatform,
  crmKeys: ReturnType<typeof crmKeyPair>,
): TenantSecrets {
  mail.clientSecret = distinctive("mail-client-secret");
  mail.refreshToken = distinctive("mail-refresh-token");
  return {
    values: {
      ...identifiers(mail, crm, "ops@leak-a.example.com"),
      ...Object.assign({}, ...SENDERS.map((s) => s.secrets)),
      MARKETING_CRM_CLIENT_SECRET: distinctive("marketing-client-secret"),
      DATA_WEBHOOK_TOKEN: distinctive("data-webhook-token"),
      CRM_WEBHOOK_SECRET: distinctive("crm-webhook-secret"),
      MAIL_CLIENT_SECRET: mail.clientSecret,
      MAIL_REFRESH_TOKEN: mail.refreshToken,
      CRM_PRIVATE_KEY: crmKeys.privateKeyBase64,
    },
  };
}

/** Tenant B: every credential fresh and unknown to the platforms (its deliveries and connectors fail). */
export function tenantBSecrets(
  mail: FakeMailProvider,
  crm: FakeCrmPlatform,
  otherKeys: ReturnType<typeof crmKeyPair>,
): TenantSecrets {
  const values = identifiers(mail, crm, "ops@leak-b.example.com");
  for (const base of SECRET_BASES) values[base] = distinctive(`b-${base.toLowerCase()}`);
  values.STANDARD_WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
  values.CRM_PRIVATE_KEY = otherKeys.privateKeyBase64;
  return { values };
}

/** The secrets file: `NAME_<TENANT>=value` lines for each tenant (values quoted: a PEM's base64 has `=`). */
export function secretsFileText(tenants: Record<string, TenantSecrets>): string {
  const lines = ["# leak run: every secret variable of every source and connector"];
  for (const [tenantId, { values }] of Object.entries(tenants)) {
    for (const [base, value] of Object.entries(values)) lines.push(`${base}_${tenantId}="${value}"`);
  }
  return `${lines.join("\n")}\n`;
}

/** The credentials among a tenant's variables, as planted secrets. */
export function plantedOf(label: string, { values }: TenantSecrets): Planted[] {
  return Object.entries(values)
    .filter(([base]) => SECRET_BASES.has(base))
    .map(([base, value]) => ({ name: `${base} (tenant ${label})`, value }));
}
