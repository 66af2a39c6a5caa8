import type { Unauthorized } from "../errors/domain-errors.ts";

/** The realm of the API's JWTs (every route but the public ones). */
export const API_REALM = "memory-runtime";
/** The realm of the webhook sources whose platforms send a bearer token of their own. */
export const WEBHOOK_REALM = "webhooks";

/**
 * The RFC 6750 §3 challenge of a 401: with `error="invalid_token"` when a token was presented and
 * refused, bare when none was (no token, or another scheme), as the RFC asks. The problem
 * document's `detail` says what was wrong; the header stays short.
 */
export function bearerChallenge(realm: string, presented: boolean): string {
  return presented ? `Bearer realm="${realm}", error="invalid_token"` : `Bearer realm="${realm}"`;
}

/** Sets the challenge on a refusal (its headers go out with the problem document or the page). */
export function challenged(error: Unauthorized, realm: string, presented: boolean): Unauthorized {
  error.headers["www-authenticate"] = bearerChallenge(realm, presented);
  return error;
}
