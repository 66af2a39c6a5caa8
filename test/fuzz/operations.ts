/** The operations of the OpenAPI document the app serves, in the shape the request generator needs. */

type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Json;
}

export interface Operation {
  /** `METHOD /template`, as the figures name it. */
  key: string;
  method: string;
  template: string;
  params: Parameter[];
  body?: { contentTypes: string[]; schema: Json; schemas: Record<string, Json> };
  /** The document's `requestBody.required`. */
  bodyRequired: boolean;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const operation = op as Json;
      const requestBody = operation.requestBody as Json | undefined;
      const content = (requestBody?.content ?? {}) as Record<string, Json>;
      const contentTypes = Object.keys(content);
      out.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        params: ((operation.parameters ?? []) as Json[]).map((p) => ({
          name: String(p.name),
          in: p.in as Parameter["in"],
          required: p.required === true,
          schema: (p.schema ?? {}) as Json,
        })),
        body:
          contentTypes.length > 0
            ? {
                contentTypes,
                schema: (content[contentTypes[0]!]?.schema ?? {}) as Json,
                schemas: Object.fromEntries(contentTypes.map((t) => [t, (content[t]?.schema ?? {}) as Json])),
              }
            : undefined,
        bodyRequired: requestBody?.required === true,
      });
    }
  }
  return out;
}

/** The operation's path with its `{name}` parameters replaced by URL-ready segments. */
export function fillPath(template: string, segments: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => segments[name] ?? "x");
}

/** Admin operations that remove or change a whole tenant: aimed at the fuzz's victim tenants only. */
export function isDestructive(op: Operation): boolean {
  if (!op.template.startsWith("/admin/")) return false;
  return op.method === "DELETE" || /\/(suspend|erase|import)$/.test(op.template);
}
