import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { unchecked } from "../http/unchecked-response.ts";
import { EntityAnswer, EntityParams, EntityQuery } from "../models/entities.ts";
import { problems } from "../models/problem.ts";
import type { EntityService } from "./service.ts";

export interface EntityRouteDeps {
  http: HttpKit;
  entities: EntityService;
}

/** `GET /memory/entities/{name}`: an entity's relationships and entries (docs/entities.md). */
export const entityRoutes = ({ http, entities }: EntityRouteDeps) =>
  new Elysia({ name: "routes.entities" })
    .use(http.authPlugin)
    .get(
      "/memory/entities/:name",
      ({ params, query, principal, req }) => entities.read({ principal, req }, params.name, query),
      {
        auth: "caller",
        params: EntityParams,
        query: EntityQuery,
        response: { 200: unchecked(EntityAnswer), ...problems(401, 403, 404, 422, 503, 507) },
        detail: {
          tags: ["memory"],
          summary:
            "What the tenant knows about an entity: its relationships both ways and the entries naming it, per category, at valid_at / as_of",
        },
      },
    );
