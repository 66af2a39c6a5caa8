import { createHmac, randomUUID } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * DocuSign Connect's signing: `X-DocuSign-Signature-N` = base64 HMAC-SHA256 of the body, one header
 * per active Connect HMAC key (numbered from 1).
 */
export const ESIGN_KEY = "kX2vQ9mR4tL7wZ1bN8cF5hJ3gD6sA0pE+Yu=";
const OLD_KEY = "oldConnectKey/0a1b2c3d4e5f6g7h8i9j0k=";

export function docusignSignature(key: string, body: string): string {
  return createHmac("sha256", key).update(body).digest("base64");
}

const headers = (signatures: string[]): Record<string, string> => ({
  "content-type": "application/json",
  "x-authorization-digest": "HMACSHA256",
  "x-docusign-ac": "4d1c9e2a-6b7f-4a8d-9c3e-2f1a0b9c8d7e",
  ...Object.fromEntries(signatures.map((s, i) => [`x-docusign-signature-${i + 1}`, s])),
});

export const esignSender: PlatformSender = {
  source: "esign",
  secrets: { ESIGN_HMAC_KEY: ESIGN_KEY },
  signsBody: true,
  sign(body: string, _opts: SignOptions): Signed {
    return { headers: headers([docusignSignature(ESIGN_KEY, body)]), body };
  },
  signRotated(body: string, _opts: SignOptions): Signed {
    return { headers: headers([docusignSignature(OLD_KEY, body), docusignSignature(ESIGN_KEY, body)]), body };
  },
};

const ACCOUNT = "f2a8c5e1-3b7d-4e9f-a1c2-6d8e0f4b2a91";

export interface Recipient {
  name: string;
  email: string;
  status: string;
  routingOrder?: string;
  [field: string]: unknown;
}

let tick = 0;

/** A Connect JSON (SIM) event: `{event, apiVersion, uri, retryCount, configurationId, generatedDateTime, data}`. */
export function connectEvent(
  event: string,
  opts: {
    envelopeId?: string | null;
    status?: string;
    signers?: Recipient[];
    carbonCopies?: Recipient[];
  } = {},
): string {
  const envelopeId = opts.envelopeId === undefined ? randomUUID() : opts.envelopeId;
  const generated = `2026-11-20T10:${String(10 + (++tick % 50)).padStart(2, "0")}:07.0924565Z`;
  const signers = opts.signers ?? [
    {
      name: "Dana Scully",
      email: "dana.scully@example.com",
      status: "sent",
      routingOrder: "1",
      recipientId: "1",
    },
  ];
  const data: Record<string, unknown> = {
    accountId: ACCOUNT,
    userId: "0b9e5a7c-2d4f-4c6e-8a1b-3f5d7e9c1a2b",
    envelopeSummary: {
      status: opts.status ?? event.replace(/^envelope-/, ""),
      documentsUri: `/envelopes/${envelopeId}/documents`,
      recipientsUri: `/envelopes/${envelopeId}/recipients`,
      envelopeUri: `/envelopes/${envelopeId}`,
      emailSubject: "Please DocuSign: Master Services Agreement.pdf",
      envelopeId,
      signingLocation: "online",
      createdDateTime: "2026-11-20T09:58:41.417Z",
      sentDateTime: "2026-11-20T09:58:43.6Z",
      statusChangedDateTime: generated,
      sender: {
        userName: "Fox Mulder",
        userId: "0b9e5a7c-2d4f-4c6e-8a1b-3f5d7e9c1a2b",
        accountId: ACCOUNT,
        email: "fox.mulder@example.com",
      },
      recipients: {
        signers: signers.map((s, i) => ({ recipientId: String(i + 1), routingOrder: "1", ...s })),
        carbonCopies: opts.carbonCopies ?? [],
      },
    },
  };
  if (envelopeId !== null) data.envelopeId = envelopeId;
  else delete (data.envelopeSummary as Record<string, unknown>).envelopeId;
  return JSON.stringify({
    event,
    apiVersion: "v2.1",
    uri: `/restapi/v2.1/accounts/${ACCOUNT}/envelopes/${envelopeId}`,
    retryCount: 0,
    configurationId: 10418,
    generatedDateTime: generated,
    data,
  });
}
