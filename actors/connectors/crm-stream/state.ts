/**
 * What the CRM stream keeps in the tenant's vault: its committed position (replay ids) and its
 * status, which the tenant's health reads (so every change that health should show is saved).
 */
import { errorMessage } from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { CrmStatus } from "../../../src/protocols/connector-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../../src/runtime/actor-system.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { Telemetry } from "../../../src/telemetry/telemetry.ts";

export const CRM_STATE = { replay: "crm:replay", status: "status:crm" } as const;

/** The committed stream position: replay id per channel, and the SSE cursor (Last-Event-ID). */
export interface CrmReplayState {
  channels: Record<string, string | number>;
  cursor?: string;
}

export interface CrmStateDeps {
  clock: Clock;
  tenant: ActorRef<TenantProtocol>;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Counts the connector by state (metrics) and times its calls. */
  telemetry?: Telemetry;
}

export class CrmStreamState {
  status: CrmStatus = {
    state: "not_configured",
    events: 0,
    reconnects: 0,
    authentications: 0,
    last_error: null,
  };
  replay: CrmReplayState = { channels: {} };
  private loaded = false;

  constructor(
    private readonly tenantId: string,
    private readonly deps: CrmStateDeps,
    /** Assertions signed so far: counted by the auth client, once there is one. */
    private readonly assertions: () => number | undefined,
  ) {}

  get stopping(): boolean {
    return this.deps.signal?.aborted ?? false;
  }

  /** The status with the figures kept elsewhere. */
  snapshot(): CrmStatus {
    return { ...this.status, authentications: this.assertions() ?? this.status.authentications };
  }

  update(patch: Partial<CrmStatus>): void {
    this.status = { ...this.status, ...patch };
    if (patch.state) this.deps.telemetry?.connectorState("crm-stream", this.tenantId, patch.state);
  }

  nowIso(): string {
    return isoOf(this.deps.clock.now());
  }

  /** Once: the committed position, and the counters of the stored status (its state is stale). */
  async load(): Promise<void> {
    if (this.loaded) return;
    const [replay, status] = await Promise.all([
      this.deps.tenant.ask({ type: "connector.state.get", key: CRM_STATE.replay }),
      this.deps.tenant.ask({ type: "connector.state.get", key: CRM_STATE.status }),
    ]);
    this.replay = replayStateOf(replay);
    if (typeof status === "object" && status !== null) {
      const stored = status as Partial<CrmStatus>;
      this.update({
        events: stored.events ?? 0,
        reconnects: stored.reconnects ?? 0,
        last_event_at: stored.last_event_at,
      });
    }
    this.loaded = true;
  }

  /** Never throws: a status that cannot be stored is logged, the stream goes on. */
  async save(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.deps.tenant.ask({
        type: "connector.state.put",
        key: CRM_STATE.status,
        value: this.snapshot(),
      });
    } catch (error) {
      this.deps.log?.(`[crm-stream ${this.tenantId}] cannot store status: ${errorMessage(error)}`);
    }
  }
}

export function replayStateOf(value: unknown): CrmReplayState {
  if (typeof value !== "object" || value === null) return { channels: {} };
  const v = value as Record<string, unknown>;
  const channels: Record<string, string | number> = {};
  if (typeof v.channels === "object" && v.channels !== null) {
    for (const [channel, id] of Object.entries(v.channels)) {
      if (typeof id === "number" || typeof id === "string") channels[channel] = id;
    }
  }
  return { channels, cursor: typeof v.cursor === "string" ? v.cursor : undefined };
}

/** Bayeux replay ids are integers; anything else (an SSE cursor from another transport) is left out. */
export function numericReplay(channels: Record<string, string | number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [channel, id] of Object.entries(channels)) {
    const n = Number(id);
    if (Number.isSafeInteger(n) && n >= 0) out[channel] = n;
  }
  return out;
}
