/**
 * Response conformance: every response a black-box test receives is checked against the OpenAPI
 * document the app serves. The status must be documented for the operation (or a `default`/`4XX`),
 * the Content-Type must be one the document lists for that status, and a JSON body
 * (`application/json`, `application/problem+json`, any `+json`) must validate against that status's
 * schema. Other bodies (the CRM's text/xml acknowledgement, the dashboard's HTML) are not read:
 * their status and media type are checked; a redirect without a body, its status. A request no
 * operation matches (a 404/405 route miss) is not checked.
 *
 * The validators are compiled once per process, from the first app asked, with Ajv (JSON Schema
 * 2020-12, as OpenAPI 3.1); identical schemas (the problem document of every error) share one.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { withComponentRefs } from "./component-refs.ts";

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  /** Literal path segments: a literal segment beats a parameter when two templates match. */
  literals: number;
  /** Status key ("200", "4XX", "default") → media type → validator (null: a body not read). */
  responses: Map<string, Map<string, ValidateFunction | null>>;
}

export interface ConformanceChecker {
  /** What is wrong with `res` as the answer to `method path` (empty: it conforms, or no operation matched). */
  problems(method: string, path: string, res: Response): Promise<string[]>;
  /** The operation (`METHOD /template`) a request would be checked against, if any. */
  operationOf(method: string, path: string): string | undefined;
}

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Builds the checker for a document (the unit tests hand it documents of their own). */
export function checkerFromDocument(doc: Json): ConformanceChecker {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  // OpenAPI's own schema keywords (annotations, for a validator).
  ajv.addVocabulary(["discriminator", "xml", "externalDocs", "example"]);
  // The named schemas, added once: each response schema refers to them by `$ref`.
  const defs = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: withComponentRefs(defs, COMPONENTS_ID) });
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(withComponentRefs(schema, COMPONENTS_ID) as Json);
      compiled.set(key, validate);
    }
    return validate;
  };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const responses = new Map<string, Map<string, ValidateFunction | null>>();
      for (const [status, response] of Object.entries(
        ((op as Json).responses ?? {}) as Record<string, Json>,
      )) {
        const media = new Map<string, ValidateFunction | null>();
        for (const [type, entry] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          const schema = entry?.schema as Json | undefined;
          try {
            media.set(type.toLowerCase(), isJson(type) && schema ? validatorOf(schema) : null);
          } catch (error) {
            throw new Error(
              `OpenAPI conformance: the schema of ${method.toUpperCase()} ${template} ${status} ${type} does not compile: ${(error as Error).message}`,
            );
          }
        }
        responses.set(status, media);
      }
      operations.push({
        method: method.toUpperCase(),
        template,
        regex: templateRegex(template),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
        responses,
      });
    }
  }

  // A path belongs to the most specific template matching it, whatever the method (OpenAPI: concrete
  // paths first): `GET /memory/facts/batch` is the batch path's, which has no GET, so a route miss
  // (405) that no operation answers, never `GET /memory/facts/{sha8}`'s.
  const match = (method: string, path: string): Operation | undefined => {
    const pathname = path.split(/[?#]/, 1)[0] ?? path;
    let literals = -1;
    let best: Operation | undefined;
    for (const op of operations) {
      if (op.literals < literals || !op.regex.test(pathname)) continue;
      if (op.literals > literals) {
        literals = op.literals;
        best = undefined;
      }
      if (op.method === method.toUpperCase()) best = op;
    }
    return best;
  };

  return {
    operationOf(method, path) {
      const op = match(method, path);
      return op ? `${op.method} ${op.template}` : undefined;
    },
    async problems(method, path, res) {
      const op = match(method, path);
      if (!op) return [];
      const status = String(res.status);
      const documented =
        op.responses.get(status) ?? op.responses.get(`${status[0]}XX`) ?? op.responses.get("default");
      if (!documented)
        return [`status ${status} is not documented (documented: ${[...op.responses.keys()].join(", ")})`];
      const header = res.headers.get("content-type");
      const type = header?.split(";")[0]?.trim().toLowerCase();
      if (documented.size === 0) {
        if (!type) return [];
        const text = await res.clone().text();
        return text.length === 0 ? [] : [`answered a ${type} body, but the document gives ${status} no body`];
      }
      if (!type) {
        // A redirect with an empty body says nothing but its status (and Location).
        if (status.startsWith("3") && (await res.clone().text()).length === 0) return [];
        return [`answered no Content-Type; documented: ${[...documented.keys()].join(", ")}`];
      }
      const key = mediaKey(documented, type);
      if (key === undefined)
        return [
          `answered ${type}, which is not documented for ${status} (documented: ${[...documented.keys()].join(", ")})`,
        ];
      const validate = documented.get(key);
      if (!validate) return [];
      const text = await res.clone().text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return [`answered ${type}, but the body is not JSON: ${clip(text)}`];
      }
      if (validate(body)) return [];
      return [...(validate.errors ?? []).map(describe), `body: ${clip(text)}`];
    },
  };
}

/**
 * The media type key of the document matching `type`: exact, one with parameters
 * (`text/plain; version=0.0.4`), `type/*` or `*\/*`.
 */
function mediaKey(documented: Map<string, unknown>, type: string): string | undefined {
  if (documented.has(type)) return type;
  for (const key of documented.keys()) if (key.split(";")[0]!.trim() === type) return key;
  const range = `${type.split("/")[0]}/*`;
  if (documented.has(range)) return range;
  return documented.has("*/*") ? "*/*" : undefined;
}

function isJson(type: string): boolean {
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" || essence.endsWith("+json");
}

function templateRegex(template: string): RegExp {
  const source = template
    .split("/")
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}/?$`);
}

const COMPONENTS_ID = "urn:openapi:components";

function describe(error: ErrorObject): string {
  const params = Object.keys(error.params ?? {}).length ? ` ${JSON.stringify(error.params)}` : "";
  return `${error.instancePath || "/"} ${error.message ?? error.keyword}${params}`;
}

function clip(text: string, max = 600): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

interface Handles {
  handle(request: Request): Promise<Response>;
}

let shared: Promise<ConformanceChecker> | undefined;

/** The checker of this process, built on first use from `app`'s own document. */
export function conformanceChecker(app: Handles): Promise<ConformanceChecker> {
  shared ??= (async () => {
    const res = await app.handle(new Request("http://localhost/openapi/json"));
    if (res.status !== 200) throw new Error(`OpenAPI conformance: GET /openapi/json answered ${res.status}`);
    return checkerFromDocument((await res.json()) as Json);
  })();
  return shared;
}

/** Throws, naming the operation, status and faults, when `res` does not conform to the document. */
export async function assertConforms(
  app: Handles,
  method: string,
  path: string,
  res: Response,
): Promise<void> {
  const checker = await conformanceChecker(app);
  const faults = await checker.problems(method, path, res);
  if (faults.length === 0) return;
  const operation = checker.operationOf(method, path);
  const type = res.headers.get("content-type") ?? "no Content-Type";
  throw new Error(
    `OpenAPI conformance: ${operation} (requested ${method.toUpperCase()} ${path.slice(0, 200)}) answered ${res.status} ${type}, which the document does not allow:\n  - ${faults.join("\n  - ")}`,
  );
}
