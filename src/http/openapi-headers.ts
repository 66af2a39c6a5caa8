type Json = Record<string, unknown>;

/** The headers the service sends that the document names, as `components.headers`. */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description:
      "On every response: the caller's `X-Request-Id` when it sent a sane one (1–128 of `A-Za-z0-9._:-`), else a new UUID; problem documents repeat it as `request_id`",
    schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  },
  "Retry-After": {
    description:
      "Whole seconds (at least 1) to wait before retrying: sent with every 429 and with the 503 `unavailable` (not with `secret_missing`, which waits for an operator)",
    schema: { type: "integer", minimum: 1 },
  },
  Location: {
    description: "Where the created entry is read (`/memory/{category}/{sha8}`), or where a redirect goes",
    schema: { type: "string" },
  },
  Allow: {
    description: "The methods the path serves (RFC 9110)",
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when the answer is the stored first answer to an `Idempotency-Key` used before (within 24 h): nothing was written this time",
    schema: { type: "string", const: "true" },
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/**
 * The operation key under which a route lists headers that only some of its statuses send
 * (`detail: { ...sendsHeaders({ 201: ["Location"] }) }`); the transform moves them to the
 * responses and drops the key.
 */
const ROUTE_HEADERS_KEY = "x-response-headers";

/** A route's `detail` fields declaring the headers sent with the given statuses. */
export function sendsHeaders(byStatus: Record<number, ResponseHeaderName[]>): Json {
  return { [ROUTE_HEADERS_KEY]: byStatus };
}

const ref = (name: ResponseHeaderName): Json => ({ $ref: `#/components/headers/${name}` });

/** The headers a response of `status` always carries, whatever the route. */
function everywhere(status: string): ResponseHeaderName[] {
  const names: ResponseHeaderName[] = ["X-Request-Id"];
  if (status === "429" || status === "503") names.push("Retry-After");
  if (status === "405") names.push("Allow");
  if (/^3\d\d$/.test(status) && status !== "304") names.push("Location");
  return names;
}

/**
 * Declares the response headers: `X-Request-Id` on every response, `Retry-After` on 429 and 503,
 * `Allow` on 405, `Location` on redirects, and what routes list with `sendsHeaders` (the entry's
 * `Location` on a write's 201, `Idempotent-Replayed` on a replayed write's 200). Each is defined
 * once, under `components.headers`.
 */
export function declareResponseHeaders(doc: Json): void {
  const components = (doc.components ?? {}) as Json;
  doc.components = components;
  components.headers = { ...((components.headers as Json | undefined) ?? {}), ...RESPONSE_HEADERS };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      const perRoute = (operation[ROUTE_HEADERS_KEY] ?? {}) as Record<string, ResponseHeaderName[]>;
      delete operation[ROUTE_HEADERS_KEY];
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const headers = (response.headers ?? {}) as Json;
        for (const name of [...everywhere(status), ...(perRoute[status] ?? [])]) headers[name] = ref(name);
        response.headers = headers;
      }
    }
  }
}
