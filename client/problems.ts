/**
 * Every error a call returns is a problem document. The service answers its errors as
 * `application/problem+json`; what sits in front of it may not (a proxy's HTML 502, an empty 503):
 * such an answer is turned into a problem document here, with `code: "unexpected_response"`, so
 * `error` always has the type it is declared with.
 */
import type { Middleware } from "openapi-fetch";
import type { Problem } from "./types.ts";

const DETAIL_MAX = 500;

/** True when `value` has the fields every problem document of the service carries. */
export function isProblem(value: unknown): value is Problem {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.status === "number" && typeof v.code === "string" && typeof v.title === "string";
}

/** The problem document standing for an error answer that is not one. */
export function unexpectedProblem(response: Response, body: string): Problem {
  return {
    type: "about:blank",
    title: `HTTP ${response.status}`,
    status: response.status,
    detail: body.slice(0, DETAIL_MAX) || `The server answered ${response.status} without a problem document`,
    code: "unexpected_response",
    request_id: response.headers.get("x-request-id") ?? "",
  };
}

/** A middleware that rewrites every error answer that is not a problem document into one. */
export const problemsOnly: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const text = await response.clone().text();
    try {
      if (isProblem(JSON.parse(text))) return undefined;
    } catch {}
    const headers = new Headers(response.headers);
    headers.set("content-type", "application/problem+json");
    headers.delete("content-length");
    return new Response(JSON.stringify(unexpectedProblem(response, text)), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  },
};
