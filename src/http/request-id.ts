import { randomUUID } from "node:crypto";

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ids = new WeakMap<Request, string>();

/** The caller's X-Request-Id when it is sane, else a new one; remembered for the error plugin. */
export function assignRequestId(request: Request): string {
  const offered = request.headers.get("x-request-id");
  const id = offered && SANE_ID.test(offered) ? offered : randomUUID();
  ids.set(request, id);
  return id;
}

export function requestIdOf(request: Request): string {
  return ids.get(request) ?? assignRequestId(request);
}
