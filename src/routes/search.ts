import { Elysia } from "elysia";
import { toVector } from "../embedding/embedder.ts";
import { allowedCategories } from "../http/permissions.ts";
import { validatedBody } from "../http/validate-body.ts";
import { CATEGORIES, type Category } from "../models/category.ts";
import { SearchBody } from "../models/search.ts";
import type { Deps } from "./deps.ts";
import { timeParam } from "./memory-query.ts";
import { resolvePrincipal } from "./principal.ts";

/** `POST /memory/search`: bi-temporal, tag and hybrid (vector + lexical) search. */
export const searchRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.search" })
    .derive(({ request }) => resolvePrincipal(deps, request))
    .post(
      "/memory/search",
      async ({ body, principal, req }) => {
        const started = performance.now();
        // Any search permission, even one narrowed to a category, admits the call; narrowing follows.
        if (principal.admin)
          throw deps.guard.deny(
            principal,
            req,
            "memory:search",
            "the operator has no memory: use a tenant token",
          );
        const tenantId = principal.tenantId;
        const categories = searchableCategories(deps, body.categories, principal, req);
        const now = deps.clock.now();
        const reply = await deps.tenant(tenantId).ask({
          type: "memory.search",
          text: body.query,
          vector: await queryVector(deps, body),
          categories,
          tags: body.tags ?? [],
          tagsAny: body.tags_any ?? [],
          validAt: timeParam(body.valid_at, "valid_at", now),
          asOf: timeParam(body.as_of, "as_of", now),
          limit: body.limit ?? 10,
        });
        return { results: reply.results, took_ms: Math.round((performance.now() - started) * 1000) / 1000 };
      },
      {
        ...validatedBody(SearchBody),
        detail: { tags: ["memory"], summary: "Hybrid, bi-temporal, tag search" },
      },
    );

/**
 * Category narrowing: a role holding `memory:search:facts` searches facts only. Asking explicitly
 * for a category the roles do not cover is refused; the default (all six) is narrowed silently.
 */
function searchableCategories(
  deps: Deps,
  requested: Category[] | undefined,
  principal: Parameters<typeof deps.guard.require>[0],
  req: Parameters<typeof deps.guard.require>[2],
): Category[] {
  const allowed = new Set(allowedCategories(deps.guard.permissionsOf(principal), "search"));
  if (allowed.size === 0)
    throw deps.guard.deny(principal, req, "memory:search", "no role grants memory:search");
  const wanted = requested ? [...new Set(requested)] : [...CATEGORIES];
  const refused = wanted.filter((c) => !allowed.has(c));
  if (requested && refused.length > 0) {
    throw deps.guard.deny(
      principal,
      req,
      `memory:search:${refused[0]}s`,
      "no role grants search on that category",
    );
  }
  return wanted.filter((c) => allowed.has(c));
}

/** The query vector: the caller's `embedding`, else the query text embedded (not for `client`). */
async function queryVector(deps: Deps, body: SearchBody): Promise<Float32Array | undefined> {
  if (body.embedding) return toVector(body.embedding, deps.embedder.dims);
  if (!body.query?.trim() || deps.embedder.kind === "client") return undefined;
  const [vec] = await deps.embedder.embed([body.query]);
  return vec;
}
