/** The operator's cookie, as the sign-in sets it and a sign-out or a stale one clears it. */
import { ADMIN_COOKIE } from "../http/auth-plugin.ts";

/** The cookie is sent back on the admin pages only. */
const COOKIE_PATH = "/admin";

/** `HttpOnly` (no script reads it), `SameSite=Strict` (no other site sends it), `Secure` over HTTPS. */
export function adminCookie(token: string, maxAge: number, secure: boolean): string {
  const attributes = [`Path=${COOKIE_PATH}`, "HttpOnly", "SameSite=Strict", `Max-Age=${maxAge}`];
  if (secure) attributes.push("Secure");
  return [`${ADMIN_COOKIE}=${token}`, ...attributes].join("; ");
}

/** Served over HTTPS: directly, or behind a proxy that says so (the flag only ever restricts the cookie). */
export function isHttps(request: Request): boolean {
  return request.url.startsWith("https:") || request.headers.get("x-forwarded-proto") === "https";
}
