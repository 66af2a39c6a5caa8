import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { unchecked } from "../http/unchecked-response.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { SearchBody, SearchResponse } from "../models/search.ts";
import type { SearchService } from "./service.ts";

export interface SearchRouteDeps {
  http: HttpKit;
  search: SearchService;
}

/** `POST /memory/search`: bi-temporal, tag and hybrid (vector + lexical) search. */
export const searchRoutes = ({ http, search }: SearchRouteDeps) =>
  new Elysia({ name: "routes.search" })
    .use(http.authPlugin)
    .post("/memory/search", ({ body, principal, req }) => search.search({ principal, req }, body), {
      auth: "caller",
      ...validatedBody(SearchBody),
      response: { 200: unchecked(SearchResponse), ...problems(400, 401, 403, 413, 415, 422, 503, 507) },
      detail: { tags: ["memory"], summary: "Hybrid, bi-temporal, tag search" },
    });
