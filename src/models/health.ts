import { Type } from "@sinclair/typebox";
import { IsoTime, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";
import { TenantStatus } from "./tenant.ts";

export const Healthz = named(
  "Health",
  StrictObject({
    status: Type.Literal("ok"),
    version: Type.String(),
    started_at: IsoTime,
    uptime_s: Type.Integer({ minimum: 0 }),
    tenants: Type.Integer({ minimum: 0 }),
    limits: StrictObject({
      open_files: Type.Integer(),
      max_open_tenants: Type.Integer(),
      open_tenants: Type.Integer(),
    }),
    /** Cluster mode only (docs/cluster.md): this node, the partitions it serves, its view of the cluster. */
    cluster: Type.Optional(
      StrictObject({
        node_id: Type.String(),
        partitions: Type.Array(Type.Integer({ minimum: 0 })),
        nodes: Type.Array(Type.String()),
        owners: Type.Record(Type.String(), Type.String()),
        partition_count: Type.Integer(),
        /** The system state's replica here (docs/cluster.md, "Cluster-wide system state"). */
        system: Type.Optional(
          StrictObject({
            applied_seq: Type.Integer({ minimum: 0, description: "The last MR_SYSTEM command applied here" }),
            applied_since_start: Type.Integer({
              minimum: 0,
              description: "Commands this process applied from the stream (not those a snapshot brought)",
            }),
            snapshot_seq: Type.Integer({
              minimum: 0,
              description: "The system snapshot this process loaded (0: none)",
            }),
            snapshots_taken: Type.Integer({
              minimum: 0,
              description: "System snapshots this process uploaded",
            }),
          }),
        ),
      }),
    ),
  }),
);

/** The runtime's background embedder (shared by every tenant): absent under `client`. */
const EmbedderHealth = StrictObject({
  kind: Type.String(),
  state: Type.Union([Type.Literal("idle"), Type.Literal("embedding"), Type.Literal("retrying")]),
  in_flight: Type.Integer({ minimum: 0, description: "Batches being embedded now" }),
  embedded: Type.Integer({ minimum: 0, description: "Vectors made since the process started" }),
  failures: Type.Integer({ minimum: 0, description: "Batches failed in a row" }),
  last_error: Type.Optional(Type.String()),
  last_error_at: Type.Optional(IsoTime),
  retry_at: Type.Optional(IsoTime),
  upgrades: Type.Optional(
    Type.Union([Type.Literal("running"), Type.Literal("yielding")], {
      description: "`tiered`: `yielding` while the model's upgrade waits for requests to quiet down",
    }),
  ),
});

/** The model extractor (`MEMORY_RUNTIME_EXTRACTOR=http`, docs/conversations.md): absent otherwise. */
const ExtractorHealth = StrictObject({
  kind: Type.Literal("http"),
  model: Type.String(),
  state: Type.Union([Type.Literal("idle"), Type.Literal("extracting"), Type.Literal("retrying")]),
  pending: Type.Integer({
    minimum: 0,
    description: "This tenant's conversation calls waiting for the model",
  }),
  extracted: Type.Integer({
    minimum: 0,
    description: "Entries written from the model's answers since the process started",
  }),
  dropped: Type.Integer({
    minimum: 0,
    description: "The model's entries refused (not valid for their category): never stored",
  }),
  failed: Type.Integer({ minimum: 0, description: "Calls let go because the model's answer was not JSON" }),
  failures: Type.Integer({ minimum: 0, description: "Model calls failed in a row (retried after a wait)" }),
  last_error: Type.Optional(Type.String()),
  last_error_at: Type.Optional(IsoTime),
  retry_at: Type.Optional(IsoTime),
});

/** CONTRACT §8's per-tenant health; `connectors` by name (`crm`, `mail`, `messaging`). */
export const TenantHealthView = named(
  "TenantHealth",
  StrictObject({
    tenant_id: Type.String(),
    status: TenantStatus,
    vault: StrictObject({ present: Type.Boolean(), entries: Type.Integer() }),
    index: StrictObject({
      vectors: Type.Integer(),
      pending: Type.Integer(),
      pending_vectors: Type.Integer({
        minimum: 0,
        description:
          "Entries without a vector, waiting for the background embedder: found by their words until embedded (0 right after a write under the default embedder, tiered)",
      }),
      pending_upgrades: Type.Optional(
        Type.Integer({
          minimum: 0,
          description:
            "Under MEMORY_RUNTIME_EMBEDDER=tiered (the default): entries whose vector is the static tier's, waiting for the sentence model's (found by meaning meanwhile)",
        }),
      ),
      embedder: Type.Optional(EmbedderHealth),
    }),
    dead_letters: Type.Integer(),
    connectors: Type.Record(Type.String(), Type.Unknown()),
    extractor: Type.Optional(ExtractorHealth),
  }),
);

export const ReloadReport = named(
  "ReloadReport",
  StrictObject({
    secrets: StrictObject({
      reloaded: Type.Boolean(),
      tenants_changed: Type.Optional(Type.Integer()),
      connectors: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      error: Type.Optional(Type.String()),
    }),
    crm_mapping: StrictObject({ reloaded: Type.Boolean(), error: Type.Optional(Type.String()) }),
  }),
);
