/**
 * The one untyped step under the named helpers: a method, a path template and its parameters sent
 * through the openapi-fetch client (so its middleware, serialisers and `fetch` apply), the answer
 * split into `data` or `error`. The helpers give each call its types from the document.
 */
import type { Client } from "openapi-fetch";
import type { paths } from "./openapi-types.ts";
import { unexpectedProblem } from "./problems.ts";
import type { Problem, Result } from "./types.ts";

export type RawClient = Client<paths>;

export interface SendInit {
  params?: {
    path?: Record<string, string>;
    query?: Record<string, unknown>;
    header?: Record<string, string>;
  };
  body?: unknown;
}

export type Send = <T>(
  method: "GET" | "POST" | "DELETE",
  path: string,
  init?: SendInit,
) => Promise<Result<T>>;

/** A request through `raw` whose types the caller states. */
export function sender(raw: RawClient): Send {
  // The path is a template the helper built from a category or a fixed route; openapi-fetch checks
  // nothing at run time, so the loosened view changes no behaviour.
  const loose = raw as unknown as {
    request(
      method: string,
      path: string,
      init?: SendInit,
    ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  };
  return async <T>(method: "GET" | "POST" | "DELETE", path: string, init?: SendInit) => {
    const { data, error, response } = await loose.request(method, path, init);
    if (!response.ok) {
      // The problems middleware made every error answer a problem document; an empty one (which
      // openapi-fetch does not read) is the only way to reach here without one.
      return { error: (error ?? unexpectedProblem(response, "")) as Problem, response };
    }
    return { data: data as T, response };
  };
}

/** The `Idempotency-Key` header, when a key is given. */
export function idempotencyHeader(key: string | undefined): Record<string, string> | undefined {
  return key === undefined ? undefined : { "idempotency-key": key };
}
