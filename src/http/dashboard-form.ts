/**
 * The dashboard's forms that change something (a dead letter's replay): how the operator's cookie
 * may authorise a POST without letting another page post with it.
 *
 * The cookie authorises GET requests only (auth-plugin.ts); a route that declares `adminForm`
 * accepts it on a POST too, when all three hold:
 * - the cookie came at all: it is `SameSite=Strict`, so no other site's page sends it;
 * - the request is same-origin: `Sec-Fetch-Site: same-origin`, or, from a browser that does not
 *   send it, an `Origin` naming this host (a sibling subdomain is "same-site" and would send a
 *   Strict cookie; it is not the same origin);
 * - the form carries the page's form token, a digest of the cookie's token that only a page
 *   rendered for this session holds (the cookie is HttpOnly: no script, and no other page, reads it).
 * A bearer token in `Authorization` needs none of this: a browser never sends one on its own.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { bearerToken } from "../auth/authenticator.ts";
import { BadRequest } from "../errors/domain-errors.ts";

/** The cookie the dashboard's sign-in form sets: the operator's token. */
export const ADMIN_COOKIE = "memory_admin";
/** The hidden field of every dashboard form that changes something. */
export const FORM_TOKEN_FIELD = "form_token";
/** Domain separation: the digest of a token means nothing anywhere else. */
const FORM_TOKEN_CONTEXT = "typed-memory-runtime dashboard form\u0000";

/** The admin cookie's value, whatever the method; undefined without one. */
export function adminCookieOf(request: Request): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === ADMIN_COOKIE) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** Whether a browser sent this request from a page of this same origin. */
export function sameOrigin(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  // Behind a proxy the public host is the forwarded one (a form cannot set either header).
  const host =
    request.headers.get("x-forwarded-host") ?? request.headers.get("host") ?? new URL(request.url).host;
  if (origin === null || origin === "null") return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The form token of a session: a digest of the token the page was rendered for. */
export function formTokenOf(token: string): string {
  return createHash("sha256").update(FORM_TOKEN_CONTEXT).update(token).digest("base64url");
}

/** The form token for the page answering `request` (the credential it came with), if any. */
export function formTokenFor(request: Request): string | undefined {
  const token = bearerToken(request) ?? adminCookieOf(request);
  return token === undefined ? undefined : formTokenOf(token);
}

/**
 * A form posted with the cookie (no bearer token) must carry its session's form token: else 400,
 * the page was not rendered for this session (or is from before a new sign-in).
 */
export function requireFormToken(request: Request, form: unknown): void {
  if (bearerToken(request) !== undefined) return;
  const cookie = adminCookieOf(request);
  const given = (form as Record<string, unknown> | null)?.[FORM_TOKEN_FIELD];
  const expected = cookie === undefined ? undefined : formTokenOf(cookie);
  if (typeof given !== "string" || expected === undefined || !sameText(given, expected))
    throw new BadRequest("the form is not from this session's page: reload the page and submit it again");
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
