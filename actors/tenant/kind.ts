import type { Config } from "../../src/config/config.ts";
import type { ModelExtraction } from "../../src/conversations/model/model-extraction.ts";
import type { BackgroundEmbedding } from "../../src/embedding/embed-scheduler.ts";
import type { ChangeFeeds } from "../../src/memory/change-feed.ts";
import type { TenantStorage } from "../../src/ports/runtime-ports.ts";
import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import type { ActorKind, ActorSystem } from "../../src/runtime/actor-system.ts";
import type { Clock } from "../../src/runtime/clock.ts";
import { roomForTenant } from "../../src/runtime/open-files.ts";
import type { GraphBuilder } from "../../src/search/vector/graph-builder.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import type { DiskSpace } from "../../src/vault/disk-space.ts";
import { startTenant } from "./tenant.ts";

export interface TenantKindDeps {
  config: Config;
  storage: TenantStorage;
  clock: Clock;
  disk: DiskSpace;
  /** The process's open-file limit: a tenant opens only while a descriptor can be spared. */
  openFiles: number;
  /** Open tenants at most: the least recently used is passivated past it. */
  maxActive: number;
  changeFeeds: ChangeFeeds;
  /** Why this tenant's vault must not open now (being deleted; cluster mode: served elsewhere). */
  refusal: (tenantId: string) => Error | undefined;
  /** The runtime's background embedder, shared by every tenant. */
  embedding: BackgroundEmbedding;
  /** Where every tenant's vector graph is built (none: on each tenant actor's thread). */
  graphBuilder?: GraphBuilder;
  /** The model extractor (`MEMORY_RUNTIME_EXTRACTOR=http`); none: the rules extractor only. */
  extraction?: ModelExtraction;
  /** Times each vault commit (src/telemetry/). */
  telemetry?: Telemetry;
}

/** The tenant actors (`tenant:<id>`), each started on its first message with its vault opened. */
export function tenantKind(actors: ActorSystem, deps: TenantKindDeps): ActorKind<TenantProtocol> {
  const { config, clock } = deps;
  const tenants: ActorKind<TenantProtocol> = actors.kind<TenantProtocol>(
    "tenant",
    (tenantId) => {
      const refused = deps.refusal(tenantId);
      if (refused) throw refused;
      return startTenant(tenantId, {
        dataDir: config.dataDir,
        storage: deps.storage,
        clock,
        dims: config.embeddingDims,
        roomToOpen: () => roomForTenant(deps.openFiles),
        tellSelf: (msg) => tenants.tell(tenantId, msg),
        background: {
          embedding: deps.embedding,
          // Vectors for an actor passivated meanwhile are dropped: its queue is taken again at its next start.
          storeVectors: async (items, vectors) => {
            if (tenants.isActive(tenantId))
              await tenants.ask(tenantId, { type: "embed.store", items, vectors });
          },
        },
        graphBuilder: deps.graphBuilder,
        extraction: deps.extraction && {
          scheduler: deps.extraction,
          // An answer for an actor passivated meanwhile is dropped: its job is asked again at its next start.
          asks: {
            write: async (key, turnIds, candidates) => {
              if (!tenants.isActive(tenantId)) throw new Error("the tenant was passivated");
              return tenants.ask(tenantId, { type: "conversation.extracted", key, turnIds, candidates });
            },
            remove: async (key) => {
              if (tenants.isActive(tenantId))
                await tenants.ask(tenantId, { type: "conversation.unqueue", key });
            },
          },
        },
        onCommitted: (changes) => deps.changeFeeds.publish(tenantId, changes),
        maxBytes: config.vaultMaxBytes,
        disk: deps.disk,
        telemetry: deps.telemetry,
      });
    },
    { maxActive: deps.maxActive },
  );
  return tenants;
}
