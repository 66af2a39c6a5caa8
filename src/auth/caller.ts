import type { SubjectReach } from "../models/scope.ts";

/** Who is calling: the verified claims of the bearer token. */
export interface Principal {
  sub: string;
  tenantId: string;
  roles: string[];
  admin: boolean;
  expiresAt: string;
  /** A subject-restricted token's reach (subject-scope.ts); absent: the whole tenant. */
  reach?: SubjectReach;
}

/** The part of a request a denial record needs. */
export interface RequestInfo {
  method: string;
  path: string;
}

export function requestInfo(request: Request): RequestInfo {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  return { method: request.method, path: start < 0 ? "/" : url.slice(start, end < 0 ? undefined : end) };
}

/** Who calls, and the request facts a denial records (a type, not an interface: Elysia's `resolve` needs one). */
export type Caller = {
  principal: Principal;
  req: RequestInfo;
};

/**
 * The principal each request's token resolved to, kept from authentication on: whatever refuses the
 * request afterwards (a suspended tenant, a tenant token on an operator route, a missing
 * permission), the access log still names who asked. Keyed by the request, so it lives as long.
 */
const authenticated = new WeakMap<Request, Principal>();

/** Notes that `request` carried a valid token of `principal` (the auth plugin, once per request). */
export function noteAuthenticated(request: Request, principal: Principal): void {
  authenticated.set(request, principal);
}

/** Who `request` authenticated as, refused or not; undefined for an anonymous or invalid token. */
export function authenticatedAs(request: Request): Principal | undefined {
  return authenticated.get(request);
}
