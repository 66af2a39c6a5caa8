/** The dashboard's errors as pages for a person (the errors plugin asks here first). */
import { requestInfo } from "../auth/caller.ts";
import type { AppError } from "../errors/domain-errors.ts";
import { ADMIN_COOKIE } from "../http/auth-plugin.ts";
import { adminCookie, isHttps } from "./cookie.ts";
import { errorPage } from "./views/error-page.ts";
import { PAGE_HEADERS } from "./views/page.ts";
import { DASHBOARD_PATH } from "./views/paths.ts";
import { signInPage } from "./views/sign-in-page.ts";

/**
 * The dashboard's errors are pages for a person. Those a sign-in cures show the form: no token →
 * 401 with the form; a refused token (expired, a tenant's: 403) → the form saying why; a stale
 * cookie is cleared. Any other (a 405, a 422, a 429) is an error page saying what went wrong.
 * Either keeps the error's own headers: a 401's WWW-Authenticate, a 405's Allow, a 429's Retry-After.
 */
export function dashboardErrorPage(
  request: Request,
  error: AppError,
  requestId: string,
): Response | undefined {
  const { path } = requestInfo(request);
  if (!path.startsWith(DASHBOARD_PATH) || error.status >= 500) return undefined;
  const headers: Record<string, string> = { ...error.headers, ...PAGE_HEADERS, "x-request-id": requestId };
  if (error.status === 401 && request.headers.get("cookie")?.includes(`${ADMIN_COOKIE}=`))
    headers["set-cookie"] = adminCookie("", 0, isHttps(request));
  const body =
    error.status === 401 || error.status === 403
      ? signInPage(signInMessage(error))
      : errorPage({
          status: error.status,
          title: error.title,
          detail: error.message || error.title,
          errors: error.errors,
          requestId,
          back: DASHBOARD_PATH,
        });
  return new Response(body, { status: error.status, headers });
}

function signInMessage(error: AppError): string | undefined {
  if (error.status === 401)
    return error.message === "missing bearer token" ? undefined : `The token was refused: ${error.message}.`;
  return "That token is not the operator's: sign in with the admin token.";
}
