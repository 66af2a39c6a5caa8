/**
 * Signs a fuzzed webhook delivery as its platform would, with the secrets planted for the fuzz's
 * tenants: the eighteen table sources through their fake senders, `data` with its bearer token,
 * `crm` with its HMAC, `marketing_crm` with its v3 signature, and `mail` with an OIDC token from the
 * local fake provider. So the bytes get past verification and reach the parsers and mappings.
 */
import { createHmac } from "node:crypto";
import type { FakeMailProvider } from "../fakes/mail-provider.ts";
import { SENDERS, signAnyBytes } from "../fakes/senders/all.ts";
import { marketingV3 } from "../helpers/webhooks.ts";

export interface SignerSecrets {
  data: string;
  crm: string;
  marketing: string;
  mail: FakeMailProvider;
}

export interface SignedDelivery {
  headers: Record<string, string>;
  body: Uint8Array;
}

const SENDER_BY_SOURCE = new Map(SENDERS.map((s) => [s.source, s]));

/** Every source the signer signs for. */
export const SIGNED_SOURCES = [...SENDER_BY_SOURCE.keys(), "data", "crm", "marketing_crm", "mail"];

export function webhookSigner(secrets: SignerSecrets) {
  return async (source: string, bytes: Uint8Array, url: string): Promise<SignedDelivery> => {
    const sender = SENDER_BY_SOURCE.get(source);
    if (sender) {
      const signed = await signAnyBytes(sender, bytes, { now: Date.now(), url });
      const body = typeof signed.body === "string" ? new TextEncoder().encode(signed.body) : signed.body;
      return { headers: signed.headers, body };
    }
    return { headers: await ownSignature(source, bytes, url, secrets), body: bytes };
  };
}

async function ownSignature(
  source: string,
  bytes: Uint8Array,
  url: string,
  secrets: SignerSecrets,
): Promise<Record<string, string>> {
  switch (source) {
    case "data":
      return { "content-type": "application/json", authorization: `Bearer ${secrets.data}` };
    case "crm":
      return {
        "content-type": "text/xml",
        "x-crm-signature": createHmac("sha256", secrets.crm).update(bytes).digest("base64"),
      };
    case "marketing_crm": {
      const ts = String(Date.now());
      return {
        "content-type": "application/json",
        "x-marketingcrm-request-timestamp": ts,
        "x-marketingcrm-signature-v3": marketingV3(secrets.marketing, "POST", url, bytes, ts),
      };
    }
    case "mail":
      return {
        "content-type": "application/json",
        authorization: `Bearer ${await secrets.mail.signPushToken()}`,
      };
    default:
      throw new Error(`no signer for ${source}`);
  }
}
