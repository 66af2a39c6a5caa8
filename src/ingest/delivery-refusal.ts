import { challenged, WEBHOOK_REALM } from "../auth/bearer-challenge.ts";
import { Unauthorized } from "../errors/domain-errors.ts";
import { bearerToken } from "../sources/kit/request.ts";

/**
 * The sources whose platforms authenticate a delivery with `Authorization: Bearer` (a static token
 * for data and warehouse, an OIDC JWT for mail's push). Every other source signs its body (an HMAC
 * in a header, a signed form): its refusal is no bearer-token failure and carries no challenge.
 */
export const BEARER_SOURCES: ReadonlySet<string> = new Set(["data", "warehouse", "mail"]);

/**
 * The 401 of a delivery whose signature or token did not verify. A bearer source's refusal carries
 * `WWW-Authenticate: Bearer realm="webhooks"` (with `error="invalid_token"` when a token was sent).
 */
export function deliveryRejected(sourceId: string, headers: Headers, reason: string): Unauthorized {
  const error = new Unauthorized(`delivery rejected: ${reason}`);
  if (!BEARER_SOURCES.has(sourceId)) return error;
  return challenged(error, WEBHOOK_REALM, bearerToken(headers) !== undefined);
}
