import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { ContextBody, ContextResponse } from "./model.ts";
import type { ContextService } from "./service.ts";

export interface ContextRouteDeps {
  http: HttpKit;
  context: ContextService;
}

/** `POST /memory/context`: the best entries for a query, packed into a token budget (docs/context-pack.md). */
export const contextRoutes = ({ http, context }: ContextRouteDeps) =>
  new Elysia({ name: "routes.context" })
    .use(http.authPlugin)
    .post("/memory/context", ({ body, principal, req }) => context.pack({ principal, req }, body), {
      auth: "caller",
      ...validatedBody(ContextBody),
      response: { 200: ContextResponse, ...problems(400, 401, 403, 413, 415, 422, 503, 507) },
      detail: { tags: ["memory"], summary: "A prompt-ready context pack within a token budget" },
    });
