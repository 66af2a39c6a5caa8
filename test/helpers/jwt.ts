import { createHmac } from "node:crypto";

/** Hand-made JWTs, for tokens the runtime's own minting would never produce. */
export function b64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString("base64url");
}

export function craftJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: string | undefined,
): string {
  const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  const signature =
    secret === undefined ? "" : createHmac("sha256", secret).update(signingInput).digest("base64url");
  return `${signingInput}.${signature}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
