import type { TenantMemory } from "../memory/memory.ts";
import type { SliceHandlers } from "../slice.ts";
import { readEntity } from "./entity-read.ts";

/** The entities part of the tenant protocol: reads of the entity index (memory's, entity-store.ts). */
export function entityHandlers(memory: TenantMemory): SliceHandlers<"entity.read"> {
  return {
    "entity.read": (msg) => readEntity(memory.indexes.entities.current(), memory.entries, msg),
  };
}
