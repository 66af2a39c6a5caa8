import { decodeJwt, decodeProtectedHeader, type JWTPayload } from "jose";

/** Time claims jose checks when present: each must be a number of seconds. */
const TIME_CLAIMS = ["exp", "nbf", "iat"] as const;

/**
 * Why a token the @elysiajs/jwt plugin refused was refused. The plugin's `verify` answers `false`
 * for every failure, so the reason is read from the token itself (decoded, never trusted): the
 * checks the verifier makes, in its order; whatever none of them explains is the signature.
 * A forged token may so be told "expired" rather than "signature invalid": both are true of it,
 * and it is refused either way.
 */
export function whyRefused(raw: string, nowMs: number): string {
  let alg: string | undefined;
  let payload: JWTPayload;
  try {
    alg = decodeProtectedHeader(raw).alg;
    payload = decodeJwt(raw);
  } catch {
    return "token malformed";
  }
  if (alg !== "HS256") return "token algorithm not allowed (HS256 only)";
  if (payload.exp === undefined) return "token claim missing: exp";
  for (const claim of TIME_CLAIMS) {
    if (payload[claim] !== undefined && typeof payload[claim] !== "number")
      return `token claim invalid: ${claim}`;
  }
  const now = Math.floor(nowMs / 1000);
  if ((payload.exp as number) <= now) return "token expired";
  if (typeof payload.nbf === "number" && payload.nbf > now) return "token not yet valid";
  return "token signature invalid";
}
