import { type Principal, type RequestInfo, requestInfo } from "../http/auth.ts";
import type { Deps } from "./deps.ts";

/** Resolved on every authenticated route: who is calling, and the request facts a denial records. */
export async function resolvePrincipal(
  deps: Deps,
  request: Request,
): Promise<{ principal: Principal; req: RequestInfo }> {
  return { principal: await deps.auth.authenticate(request), req: requestInfo(request) };
}
