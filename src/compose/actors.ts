/**
 * The second stage (compose.ts): the actor system and the actors every tenant has. The tenant
 * actors (actors/tenant/kind.ts) with what they are given (the embedders, the model extractor),
 * and the outbound workers (actors/tenant/outbound/workers.ts). What runs on its own for a tenant
 * runs only where the placement port serves it, and stops with the runtime (`stopping`).
 */
import { tenantKind } from "../../actors/tenant/kind.ts";
import { outboundWorkers } from "../../actors/tenant/outbound/workers.ts";
import { modelExtraction } from "../conversations/model/configured-extractor.ts";
import { backgroundEmbedder } from "../embedding/background-embedder.ts";
import { configuredEmbedder, type EmbedderConfig } from "../embedding/create-embedder.ts";
import type { Embedder } from "../embedding/embedder.ts";
import { AppError } from "../errors/domain-errors.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import { isoOf } from "../models/common.ts";
import type { OutboundEvents } from "../outbound/outbound.ts";
import type { RuntimePorts } from "../ports/runtime-ports.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import { type ActorKind, type ActorRef, ActorSystem } from "../runtime/actor-system.ts";
import { ForegroundLoad } from "../runtime/foreground-load.ts";
import { maxOpenTenantsFor, openFileLimit } from "../runtime/open-files.ts";
import { type GraphBuilder, threadGraphBuilder } from "../search/vector/graph-builder.ts";
import type { Stores } from "./stores.ts";

/** The system actor's kind: made by the system stage (system.ts), addressed before by `audit`. */
export const SYSTEM_KIND = "system";

export interface Actors {
  actors: ActorSystem;
  embedder: Embedder;
  /** Requests in flight, counted by the HTTP plugin: background work yields to them. */
  foreground: ForegroundLoad;
  embedding: ReturnType<typeof backgroundEmbedder>;
  /** Every tenant's vector graph is built on this thread (src/search/vector/graph-builder.ts). */
  graphBuilder: GraphBuilder;
  extraction: ReturnType<typeof modelExtraction>;
  limits: { openFiles: number; maxOpenTenants: number };
  tenants: ActorKind<TenantProtocol>;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Aborted first at stop: connectors and outbound workers end their network calls and timers. */
  stopping: AbortController;
  tenantStatus(tenantId: string): "active" | "suspended" | undefined;
  servedHere(tenantId: string): boolean;
  /** The tenant's status where what runs on its own for it runs here, else undefined. */
  statusHere(tenantId: string): "active" | "suspended" | undefined;
  /** Records an admin action with the system actor; resolves once committed. */
  audit(event: Omit<AdminEvent, "at">): Promise<void>;
  outbound: OutboundEvents;
}

export type ActorPorts = Pick<RuntimePorts, "storage" | "placement">;

export function spawnActors(
  stores: Stores,
  { storage, placement }: ActorPorts,
  localModel: EmbedderConfig["localModel"],
): Actors {
  const { config, clock, log, telemetry, store } = stores;
  const embedder = configuredEmbedder(config, { telemetry, localModel });
  // Vectors are made after the answer, fairly across tenants; `tiered`'s upgrade yields to requests.
  const foreground = new ForegroundLoad(clock);
  const embedding = backgroundEmbedder(embedder, { model: config.embeddingsModel, clock, log, foreground });
  // Conversations' turns are read by a model after their answer, when one is configured.
  const extraction = modelExtraction(config.extractor, { clock, log, telemetry });
  const graphBuilder = threadGraphBuilder();
  const actors = new ActorSystem({
    clock,
    idleMs: config.actorIdleMs,
    // Domain errors are replies; anything else is a crash and restarts the actor from disk.
    isCrash: (error) => !(error instanceof AppError),
    onFailure: (f) => log(`[actor ${f.kind}:${f.key}] ${f.via} ${f.type} failed: ${errorText(f.error)}`),
    telemetry,
  });
  // Each open tenant holds file descriptors: the least recently used is passivated past the bound.
  const openFiles = openFileLimit();
  const limits = { openFiles, maxOpenTenants: config.maxOpenTenants ?? maxOpenTenantsFor(openFiles) };
  // A vault opens only where the tenant is served and while it is not being erased.
  const tenants = tenantKind(actors, {
    ...{ config, storage, clock, disk: stores.disk, openFiles, changeFeeds: stores.changeFeeds },
    maxActive: limits.maxOpenTenants,
    refusal: (tenantId) => stores.erasing.refusal(tenantId) ?? placement.vaultRefusal(tenantId),
    embedding,
    graphBuilder,
    extraction,
    telemetry,
  });
  const stopping = new AbortController();
  const tenantStatus = (tenantId: string) => store.getTenant(tenantId)?.status;
  const servedHere = (tenantId: string) => placement.servedHere(tenantId);
  const statusHere = (tenantId: string) => (servedHere(tenantId) ? tenantStatus(tenantId) : undefined);
  const system = actors.address<SystemProtocol>(SYSTEM_KIND).ref(SYSTEM_KIND);
  const audit = (event: Omit<AdminEvent, "at">) =>
    system.ask({ type: "admin.record", event: { at: isoOf(clock.now()), ...event } });
  const base = { config, clock, signal: stopping.signal, log, telemetry };
  const outbound = outboundWorkers(actors, {
    ...base,
    tenants,
    feeds: stores.changeFeeds,
    statusHere,
    audit,
  });
  return {
    ...{ actors, embedder, foreground, embedding, graphBuilder, extraction, limits, tenants },
    tenant: (tenantId) => tenants.ref(tenantId),
    ...{ stopping, tenantStatus, servedHere, statusHere, audit, outbound },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
