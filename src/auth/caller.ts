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
