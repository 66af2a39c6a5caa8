import { type TSchema, Type } from "@sinclair/typebox";
import { sentAs } from "./media-type.ts";
import { named } from "./schema-name.ts";

/** The media type of every error the API answers (RFC 9457). */
export const PROBLEM_JSON = "application/problem+json";

/** RFC 9457 problem document (CONTRACT §1): every error the API answers. */
export const Problem = named(
  "Problem",
  Type.Object(
    {
      type: Type.String({ description: "/problems/<code>" }),
      title: Type.String(),
      status: Type.Integer({ minimum: 400, maximum: 599 }),
      detail: Type.String(),
      code: Type.String({ description: "A stable snake_case code, e.g. validation_failed" }),
      request_id: Type.String(),
      errors: Type.Optional(
        Type.Array(
          Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const MEANINGS: Record<number, string> = {
  400: "Body not parseable",
  401: "Missing, malformed, expired or badly signed credentials",
  403: "Refused by the caller's roles, tenant or status (recorded as a denial)",
  404: "Unknown tenant, entry, role, dead letter or source",
  405: "Known path, another method",
  406: "The client does not accept the media type answered",
  409: "Conflict with the current state",
  410: "The entry was erased: only its tombstone is left",
  413: "Body over the limit",
  415: "Body of a media type the route does not read",
  422: "Validation failed",
  429: "Rate limited (Retry-After)",
  503: "A secret is missing, or no resource is free (Retry-After)",
  507: "Storage full (disk, LMDB map or the vault's size ceiling): nothing was written; retry once space is freed",
};

/** Response schemas of the given error statuses, each a problem document sent as application/problem+json. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses)
    out[status] = sentAs(PROBLEM_JSON, { ...Problem, description: MEANINGS[status] ?? "Error" });
  return out;
}

/** One error status's problem document, described for the route (what it means there). */
export function problemWith(status: number, description: string): Record<number, TSchema> {
  return { [status]: sentAs(PROBLEM_JSON, { ...Problem, description }) };
}

/**
 * Cluster mode's 307 (docs/cluster.md, "Redirects"): a node that does not serve the tenant sends
 * what NATS cannot carry to the owner's advertised URL, path and query kept.
 */
export function ownerRedirect(): Record<307, TSchema> {
  return {
    307: Type.String({
      description:
        "Cluster mode: another node serves this tenant; Location is that node's URL for the same request (repeat method and body)",
    }),
  };
}
