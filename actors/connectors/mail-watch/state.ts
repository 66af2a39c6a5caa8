/**
 * What the mail watch keeps in the tenant's vault (its connector state): the expansion memory, the
 * watch, and the status stored as `status:mail`, which the tenant's health reads.
 */
import { errorMessage } from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { MailStatus } from "../../../src/protocols/connector-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../../src/runtime/actor-system.ts";
import type { Telemetry } from "../../../src/telemetry/telemetry.ts";
import type { CatchUpQueue } from "./catch-up.ts";
import { ExpansionMemory } from "./expansion-memory.ts";
import { type StoredWatch, storedWatchOf } from "./watch-schedule.ts";

export const MAIL_STATE = {
  history: "mail:history",
  threads: "mail:threads",
  recent: "mail:recent",
  watch: "mail:watch",
  status: "status:mail",
} as const;

export interface MailStateDeps {
  tenant: ActorRef<TenantProtocol>;
  /** Counts the connector by state (metrics) and times its calls. */
  telemetry?: Telemetry;
  /** Aborted when the runtime stops: in-flight calls end and no timer fires afterwards. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export class MailWatchState {
  /** Until `mail.start` (or a stored status), the connector only expands notifications. */
  status: MailStatus = { state: "push_only", last_error: null };
  watch: StoredWatch | undefined;
  readonly memory = new ExpansionMemory();
  private loaded = false;

  constructor(
    private readonly tenantId: string,
    private readonly deps: MailStateDeps,
    /** Holds the catch-up figures the status shows. */
    private readonly catchUp: CatchUpQueue,
  ) {}

  get stopping(): boolean {
    return this.deps.signal?.aborted ?? false;
  }

  /** The status with the catch-up figures, which live in the queue. */
  snapshot(): MailStatus {
    const next = this.catchUp.nextAt;
    return {
      ...this.status,
      pending_retries: this.catchUp.size,
      next_retry_at: next === undefined ? undefined : isoOf(next),
    };
  }

  update(patch: Partial<MailStatus>): void {
    this.status = { ...this.status, ...patch };
    if (patch.state) this.deps.telemetry?.connectorState("mail-watch", this.tenantId, patch.state);
  }

  log(line: string): void {
    this.deps.log?.(`[mail-watch ${this.tenantId}] ${line}`);
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    const get = (key: string) => this.deps.tenant.ask({ type: "connector.state.get", key });
    const [mark, threads, recent, watch, status] = await Promise.all([
      get(MAIL_STATE.history),
      get(MAIL_STATE.threads),
      get(MAIL_STATE.recent),
      get(MAIL_STATE.watch),
      get(MAIL_STATE.status),
    ]);
    this.memory.restore({ mark, threads, recent });
    this.watch = storedWatchOf(watch);
    if (typeof status === "object" && status !== null) this.status = { ...(status as MailStatus) };
    this.loaded = true;
  }

  async put(key: string, value: unknown): Promise<void> {
    if (this.stopping) return;
    await this.deps.tenant.ask({ type: "connector.state.put", key, value });
  }

  /** Never throws: a status that cannot be stored is logged, the connector goes on. */
  async saveStatus(): Promise<void> {
    try {
      await this.put(MAIL_STATE.status, this.snapshot());
    } catch (error) {
      this.log(`cannot store status: ${errorMessage(error)}`);
    }
  }

  /** What an expansion commits with its entries, in the tenant's transaction. */
  toCommit(): Array<[string, unknown]> {
    const { threads, recent } = this.memory.lists();
    return [
      [MAIL_STATE.history, this.memory.mark],
      [MAIL_STATE.threads, threads],
      [MAIL_STATE.recent, recent],
      [MAIL_STATE.status, this.snapshot()],
    ];
  }
}
