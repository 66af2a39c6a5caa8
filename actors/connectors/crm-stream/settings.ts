/**
 * The CRM stream's settings, read from the tenant's secrets and checked before anything connects:
 * a missing secret leaves the connector `not_configured`, an unsafe or malformed one `refused`, and
 * health says which.
 */
import { errorMessage } from "../../../src/connectors/transport.ts";
import { insecureUrlReason, trimSlash } from "../../../src/connectors/url-policy.ts";
import type { Secrets } from "../../../src/secrets/secrets.ts";
import { decodePrivateKey } from "./crm-auth.ts";

export const DEFAULT_CHANNELS = ["/data/ChangeEvents"];
export const DEFAULT_API_VERSION = "62.0";

export const CRM_REQUIRED = ["CRM_CLIENT_ID", "CRM_PRIVATE_KEY", "CRM_USERNAME", "CRM_INSTANCE_URL"] as const;

export interface CrmSettings {
  clientId: string;
  privateKeyPem: string;
  username: string;
  instanceUrl: string;
  audience: string;
  streamUrl?: string;
  channels: string[];
  apiVersion: string;
}

export type CrmSettingsRead =
  | { ok: true; settings: CrmSettings }
  | { ok: false; state: "not_configured" | "refused"; reason: string };

type Refused = Extract<CrmSettingsRead, { ok: false }>;

/** The tenant's stream settings, or why the connector cannot start with them. */
export function crmSettingsOf(secrets: Secrets, tenantId: string, loginUrl?: string): CrmSettingsRead {
  const get = (base: string) => secrets.get(base, tenantId)?.trim() || undefined;
  const missing = CRM_REQUIRED.filter((base) => !get(base));
  if (missing.length > 0) {
    return {
      ok: false,
      state: "not_configured",
      reason: `missing ${missing.map((b) => `${b}_${tenantId}`).join(", ")}`,
    };
  }
  const instanceUrl = trimSlash(get("CRM_INSTANCE_URL")!);
  const audience = trimSlash(get("CRM_LOGIN_URL") ?? loginUrl ?? instanceUrl);
  const streamUrl = get("CRM_STREAM_URL");
  const privateKeyPem = get("CRM_PRIVATE_KEY")!;
  const refused =
    urlsRefused({ CRM_INSTANCE_URL: instanceUrl, CRM_LOGIN_URL: audience, CRM_STREAM_URL: streamUrl }) ??
    keyRefused(privateKeyPem);
  if (refused) return refused;
  const channels = (get("CRM_STREAM_CHANNELS") ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = channels.find((c) => !/^\/[A-Za-z0-9_/.*-]{1,250}$/.test(c));
  if (bad !== undefined)
    return { ok: false, state: "refused", reason: "CRM_STREAM_CHANNELS holds an invalid channel name" };
  const apiVersion = get("CRM_API_VERSION") ?? DEFAULT_API_VERSION;
  if (!/^\d{1,3}\.\d$/.test(apiVersion))
    return { ok: false, state: "refused", reason: "CRM_API_VERSION must look like 62.0" };
  return {
    ok: true,
    settings: {
      clientId: get("CRM_CLIENT_ID")!,
      privateKeyPem,
      username: get("CRM_USERNAME")!,
      instanceUrl,
      audience,
      streamUrl,
      channels: channels.length > 0 ? channels : DEFAULT_CHANNELS,
      apiVersion,
    },
  };
}

/** Credentials and tokens travel only over https (or to loopback, for local fakes): checked in order. */
function urlsRefused(urls: Record<string, string | undefined>): Refused | undefined {
  for (const [name, url] of Object.entries(urls)) {
    const reason = url === undefined ? undefined : insecureUrlReason(name, url);
    if (reason) return { ok: false, state: "refused", reason };
  }
  return undefined;
}

/** A key that cannot sign is refused now, not at the first token request. */
function keyRefused(privateKeyPem: string): Refused | undefined {
  try {
    decodePrivateKey(privateKeyPem);
    return undefined;
  } catch (error) {
    return { ok: false, state: "refused", reason: errorMessage(error) };
  }
}
