import { Elysia } from "elysia";
import { toVector } from "../embedding/embedder.ts";
import { ValidationFailed } from "../errors.ts";
import type { Principal, RequestInfo } from "../http/auth.ts";
import { memoryPermission } from "../http/permissions.ts";
import { validatedBody } from "../http/validate-body.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import { ENTRY_INPUT, type EntryDraft } from "../models/entry.ts";
import type { Deps } from "./deps.ts";
import { idempotencyKeyOf, listQueryOf, sha8Param } from "./memory-query.ts";
import { resolvePrincipal } from "./principal.ts";

/** The tenant a memory call acts on: the token's own. The operator has no memory of its own. */
export function memoryTenant(deps: Deps, principal: Principal, req: RequestInfo, permission: string): string {
  if (principal.admin)
    throw deps.guard.deny(principal, req, permission, "the operator has no memory: use a tenant token");
  deps.guard.require(principal, permission, req);
  return principal.tenantId;
}

/** The entry's embedding: the caller's (client embedder) or computed from its content. */
export async function entryVector(deps: Deps, draft: EntryDraft): Promise<Float32Array | undefined> {
  if (deps.embedder.kind === "client") {
    if (!draft.embedding)
      throw new ValidationFailed("this runtime's embedder is `client`: send `embedding`", [
        { path: "/embedding", message: "required" },
      ]);
    return toVector(draft.embedding, deps.embedder.dims);
  }
  if (draft.embedding) {
    throw new ValidationFailed("`embedding` is accepted only when the embedder is `client`", [
      { path: "/embedding", message: "not accepted" },
    ]);
  }
  const [vec] = await deps.embedder.embed([draft.content]);
  return vec;
}

function categoryRoutes(deps: Deps, category: Category) {
  const plural = PLURAL_OF[category];
  const tags = ["memory"];
  return new Elysia({ name: `routes.memory.${plural}` })
    .derive(({ request }) => resolvePrincipal(deps, request))
    .post(
      `/memory/${plural}`,
      async ({ body, principal, req, request, set }) => {
        const permission = memoryPermission("write", category);
        const tenantId = memoryTenant(deps, principal, req, permission);
        if (body.tenant_id !== undefined && body.tenant_id !== tenantId) {
          throw deps.guard.deny(principal, req, permission, "a write into another tenant was attempted");
        }
        const draft = { ...body, category } as EntryDraft;
        const idempotencyKey = idempotencyKeyOf(request);
        const vector = await entryVector(deps, draft);
        const reply = await deps.tenant(tenantId).ask({
          type: "entry.create",
          draft,
          createdBy: principal.sub,
          vector,
          idempotencyKey: idempotencyKey && `${principal.sub}\u0000${category}\u0000${idempotencyKey}`,
        });
        set.status = reply.status;
        return reply.entry;
      },
      { ...validatedBody(ENTRY_INPUT[category]), detail: { tags, summary: `Create a ${category}` } },
    )
    .get(
      `/memory/${plural}`,
      ({ query, principal, req }) => {
        const tenantId = memoryTenant(deps, principal, req, memoryPermission("read", category));
        const q = listQueryOf(query, deps.clock.now());
        return deps.tenant(tenantId).ask({ type: "entry.list", category, ...q });
      },
      {
        detail: {
          tags,
          summary: category === "outcome" ? "List outcomes of resolved decisions" : `List ${plural}`,
        },
      },
    )
    .get(
      `/memory/${plural}/:sha8`,
      ({ params, query, principal, req }) => {
        const tenantId = memoryTenant(deps, principal, req, memoryPermission("read", category));
        const id = sha8Param(params.sha8);
        const includeEmbedding = listQueryOf({ include: query.include }, 0).includeEmbedding;
        return deps.tenant(tenantId).ask({ type: "entry.get", category, id, includeEmbedding });
      },
      { detail: { tags, summary: `Read one ${category} by its SHA-8 id` } },
    );
}

/** `/memory/{category}` for the six categories, each with its own strict body schema. */
export const memoryRoutes = (deps: Deps) => {
  let app = new Elysia({ name: "routes.memory" });
  for (const category of CATEGORIES) app = app.use(categoryRoutes(deps, category)) as unknown as typeof app;
  return app;
};
