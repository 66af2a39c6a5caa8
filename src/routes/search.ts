import { Elysia } from "elysia";
import { unchecked } from "../http/unchecked-response.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { SearchBody, SearchResponse } from "../models/search.ts";
import { contextRoutes } from "./context.ts";
import type { Deps } from "./deps.ts";

/** `POST /memory/search`: bi-temporal, tag and hybrid (vector + lexical) search. */
export const searchRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.search" })
    .use(deps.authPlugin)
    .post("/memory/search", ({ body, principal, req }) => deps.memory.search({ principal, req }, body), {
      auth: "caller",
      ...validatedBody(SearchBody),
      response: { 200: unchecked(SearchResponse), ...problems(400, 401, 403, 413, 415, 422, 503, 507) },
      detail: { tags: ["memory"], summary: "Hybrid, bi-temporal, tag search" },
    })
    .use(contextRoutes(deps));
