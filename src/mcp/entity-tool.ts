/**
 * MCP's `memory_entity`: what the tenant knows about an entity, as `GET /memory/entities/{name}`
 * answers it (docs/entities.md), with the same checks and permissions.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Static, Type } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import type { Caller } from "../auth/caller.ts";
import type { EntityService } from "../entities/service.ts";
import { checkBody } from "../http/validate-body.ts";
import { StrictObject } from "../models/common.ts";
import { EntityAnswer, EntityParams, EntityQuery } from "../models/entities.ts";
import { jsonSchemaOf } from "./schemas.ts";

/** The route's name, times and limit as one object; an unknown argument is refused. */
export const EntityArgs = StrictObject({
  name: EntityParams.properties.name,
  valid_at: EntityQuery.properties.valid_at,
  as_of: EntityQuery.properties.as_of,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

const check = TypeCompiler.Compile(EntityArgs) as TypeCheck<typeof EntityArgs>;

/** A tool as tools.ts lists them (its McpTool, written out: tools.ts imports this file). */
export function entityTool({ entities }: { entities: Pick<EntityService, "read"> }): {
  definition: Tool;
  run(caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
} {
  return {
    definition: {
      name: "memory_entity",
      title: "What we know about an entity",
      description:
        "What the tenant knows about a person, a company, a place or an identifier (an e-mail, `cus_…`, `INV-42`): its relationships both ways, the entries naming it per category (current first, `limit` each) and the entities named with it, at `valid_at` / `as_of`; as GET /memory/entities/{name}. Unknown: a not_found error.",
      inputSchema: jsonSchemaOf(EntityArgs),
      outputSchema: jsonSchemaOf(EntityAnswer),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async run(caller, args) {
      checkBody(check, args);
      const { name, ...query } = args as Static<typeof EntityArgs>;
      return entities.read(caller, name, query);
    },
  };
}
