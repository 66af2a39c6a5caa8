/**
 * Cluster-wide system state (docs/cluster.md, "Cluster-wide system state"): each node's
 * SystemStore becomes a replica of the stream `MR_SYSTEM`. Its mutating methods publish a command
 * carrying complete arguments (ids and timestamps fixed by the caller), every node applies the
 * stream in order, and the caller gets the result of its own node's application. Reads stay local.
 *
 * The store keeps the sequence of the last command it applied, committed with the command's
 * effect, so a restarting node applies only the commands after it. A node whose sequence is below
 * the stream's first one (the stream was purged below a snapshot) loads the newest system snapshot
 * first (system-snapshots.ts), then applies what follows it.
 */
import { randomUUID } from "node:crypto";
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Conflict, Unavailable } from "../errors/domain-errors.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import type { Role } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import { type Clock, systemClock } from "../runtime/clock.ts";
import { nameKey, type SystemStore } from "../vault/system-store.ts";
import type { SystemSnapshots } from "./system-snapshots.ts";

export const SYSTEM_STREAM = "MR_SYSTEM";
export const SYSTEM_SUBJECT = "mr.system";
/** A command whose commit failed (a full disk) is applied again after this long. */
const RETRY_AFTER_MS = 1000;

/** Every command carries the id its submitter waits on (a node's own command may be applied before its publish ack returns). */
export type SystemCommand = { id?: string } & (
  | { op: "createTenant"; tenant: Tenant }
  | { op: "setTenantStatus"; tenantId: string; status: Tenant["status"] }
  | { op: "deleteTenant"; tenantId: string }
  | { op: "putRole"; tenantId: string; role: Role }
  | { op: "deleteRole"; tenantId: string; name: string }
  | { op: "recordDenial"; denial: Denial }
  | { op: "recordAdminEvent"; event: AdminEvent }
);
type Command = SystemCommand;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The store's own mutators, applied locally in stream order. */
interface Mutators {
  createTenant: SystemStore["createTenant"];
  setTenantStatus: SystemStore["setTenantStatus"];
  deleteTenant: SystemStore["deleteTenant"];
  putRole: SystemStore["putRole"];
  deleteRole: SystemStore["deleteRole"];
  recordDenial: SystemStore["recordDenial"];
  recordAdminEvent: SystemStore["recordAdminEvent"];
}

export interface SystemReplicaDeps {
  store: SystemStore;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Opened only when a snapshot must be loaded. */
  snapshots: () => Promise<SystemSnapshots>;
  /** A tenant was created, suspended, resumed or deleted (by any node): its connectors follow. */
  tenantChanged?: (tenantId: string) => void;
  /** The store's content was replaced by a snapshot: these tenants (before and after) may have changed. */
  replaced?: (tenantIds: string[]) => void;
  /** Every command applied here, after its commit (the snapshot schedule counts them). */
  applied?: (seq: number) => void;
  clock?: Clock;
  log: (line: string) => void;
}

/** What `/healthz` shows of the replica (cluster mode). */
export interface SystemReplicaView {
  /** The last `MR_SYSTEM` command applied here. */
  applied_seq: number;
  /** Commands this process applied from the stream (not those a snapshot brought). */
  applied_since_start: number;
  /** The sequence of the last snapshot this process loaded; 0: none. */
  snapshot_seq: number;
}

export class SystemReplica {
  private applied: number;
  private appliedSinceStart = 0;
  private snapshotSeq = 0;
  /** Submitters by command id; `seq` once its publish is acked. */
  private readonly waiting = new Map<string, { resolve: (outcome: Outcome) => void; seq?: number }>();
  private readonly reached: Array<{ seq: number; resolve: () => void }> = [];
  private readonly local: Mutators;
  private readonly store: SystemStore;
  private readonly clock: Clock;
  private stopConsumer = () => {};
  private stopped = false;

  constructor(private readonly deps: SystemReplicaDeps) {
    const store = deps.store;
    this.store = store;
    this.clock = deps.clock ?? systemClock;
    this.applied = store.appliedSeq();
    this.local = {
      createTenant: store.createTenant.bind(store),
      setTenantStatus: store.setTenantStatus.bind(store),
      deleteTenant: store.deleteTenant.bind(store),
      putRole: store.putRole.bind(store),
      deleteRole: store.deleteRole.bind(store),
      recordDenial: store.recordDenial.bind(store),
      recordAdminEvent: store.recordAdminEvent.bind(store),
    };
  }

  /**
   * Brings the local store up to the stream's last command (from its own applied sequence, or
   * from the newest snapshot when the stream no longer holds the commands after it), keeps
   * applying the stream, then routes the store's mutators through it.
   */
  async start(): Promise<void> {
    this.store.leaveRoomToSubmitter();
    await ensureSystemStream(this.deps.jsm);
    await this.joinStream();
    const consumer = await this.deps.js.consumers.get(SYSTEM_STREAM, {
      deliver_policy: this.applied === 0 ? DeliverPolicy.All : DeliverPolicy.StartSequence,
      ...(this.applied === 0 ? {} : { opt_start_seq: this.applied + 1 }),
    });
    const messages = await consumer.consume();
    this.stopConsumer = () => void messages.stop();
    void (async () => {
      for await (const msg of messages) await this.receive(msg.seq, msg.json<Command>());
    })().catch((error) => this.deps.log(`[cluster] system replica stopped: ${error}`));
    await this.catchUp();
    const s = this.store as unknown as Record<keyof Mutators, unknown>;
    s.createTenant = (tenant: Tenant) => this.submitGrowth({ op: "createTenant", tenant });
    s.setTenantStatus = (tenantId: string, status: Tenant["status"]) =>
      this.submit({ op: "setTenantStatus", tenantId, status });
    s.deleteTenant = (tenantId: string) => this.submit({ op: "deleteTenant", tenantId });
    s.putRole = (tenantId: string, role: Role) => this.submitGrowth({ op: "putRole", tenantId, role });
    s.deleteRole = (tenantId: string, name: string) => this.submit({ op: "deleteRole", tenantId, name });
    s.recordDenial = (denial: Denial) => this.submit({ op: "recordDenial", denial });
    s.recordAdminEvent = (event: AdminEvent) => this.submit({ op: "recordAdminEvent", event });
  }

  /**
   * Before consuming: a store that holds what the stream does not (written before it applied any
   * command, or past the stream's end: another stream's history) is emptied; one whose next
   * command was purged loads the newest snapshot.
   */
  private async joinStream(): Promise<void> {
    const { first_seq: first, last_seq: last } = (await this.deps.jsm.streams.info(SYSTEM_STREAM)).state;
    if (this.applied > last || (this.applied === 0 && !this.store.isEmpty())) {
      this.deps.log(
        `[cluster] system store at ${this.applied} does not match MR_SYSTEM (last ${last}): emptied`,
      );
      await this.store.replaceWith(undefined);
      this.applied = 0;
    }
    if (this.applied + 1 < first) await this.loadSnapshot(first - 1);
  }

  view(): SystemReplicaView {
    return {
      applied_seq: this.applied,
      applied_since_start: this.appliedSinceStart,
      snapshot_seq: this.snapshotSeq,
    };
  }

  /** Resolves once every command published before the call is applied here. */
  async catchUp(): Promise<void> {
    const info = await this.deps.jsm.streams.info(SYSTEM_STREAM);
    const last = info.state.last_seq;
    if (this.applied >= last) return;
    await new Promise<void>((resolve) => this.reached.push({ seq: last, resolve }));
  }

  /** A command that grows the store: refused (507) here, before publication, when this store is at its ceiling. */
  private submitGrowth(command: Command): Promise<unknown> {
    try {
      this.store.assertRoom();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.submit(command);
  }

  private async submit(command: Command): Promise<unknown> {
    const id = randomUUID();
    const outcome = new Promise<Outcome>((resolve) => this.waiting.set(id, { resolve }));
    try {
      const ack = await this.deps.js.publish(SYSTEM_SUBJECT, JSON.stringify({ ...command, id }));
      const waiter = this.waiting.get(id);
      if (waiter) waiter.seq = ack.seq;
      this.settleIfSkipped(id);
    } catch (error) {
      this.waiting.delete(id);
      throw error;
    }
    const settled = await outcome;
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  /** The next message of the stream: applied in order; one past a gap (a purge) loads a snapshot first. */
  private async receive(seq: number, command: Command): Promise<void> {
    if (seq > this.applied + 1) await this.loadSnapshot(seq - 1);
    if (seq <= this.applied) return;
    await this.applyOne(seq, command);
  }

  /**
   * Replaces the store by the newest snapshot, which must hold every command up to `atLeast` (the
   * stream was purged below it); tried again until it works: nothing can be applied before.
   */
  private async loadSnapshot(atLeast: number): Promise<void> {
    const before = this.store.listTenants().map((t) => t.tenant_id);
    for (;;) {
      try {
        const seq = await (await this.deps.snapshots()).loadInto(this.store, atLeast);
        this.applied = seq;
        this.snapshotSeq = seq;
        this.deps.log(`[cluster] system store loaded from the snapshot at ${seq}`);
        break;
      } catch (error) {
        this.deps.log(`[cluster] system snapshot load failed (retried): ${error}`);
        if (this.stopped) throw error;
        await this.pause();
      }
    }
    for (const id of [...this.waiting.keys()]) this.settleIfSkipped(id);
    this.resolveReached();
    const after = this.store.listTenants().map((t) => t.tenant_id);
    this.deps.replaced?.([...new Set([...before, ...after])]);
  }

  /** The command's effect and its sequence are committed together; a failed commit is applied again. */
  private async applyOne(seq: number, command: Command): Promise<void> {
    let outcome: Outcome;
    for (;;) {
      const effect = settle(() => this.apply(command));
      // Same synchronous run as the effect's puts: the same transaction (SystemStore.markApplied).
      const marked = this.store.markApplied(seq);
      outcome = await effect;
      try {
        await marked;
        break;
      } catch (error) {
        this.deps.log(`[cluster] system command ${seq} (${command.op}) not committed, retried: ${error}`);
        if (this.stopped) return;
        await this.pause();
      }
    }
    this.applied = seq;
    this.appliedSinceStart++;
    const waiter = command.id === undefined ? undefined : this.waiting.get(command.id);
    if (command.id !== undefined) this.waiting.delete(command.id);
    if (waiter) waiter.resolve(outcome);
    else if (!outcome.ok)
      this.deps.log(`[cluster] system command ${seq} (${command.op}) refused: ${outcome.error}`);
    if (outcome.ok) this.followTenant(command);
    this.deps.applied?.(seq);
    this.resolveReached();
  }

  /** The owner of a tenant created, suspended, resumed or deleted anywhere brings its connectors in line. */
  private followTenant(command: Command): void {
    if (command.op === "createTenant") this.deps.tenantChanged?.(command.tenant.tenant_id);
    else if (command.op === "setTenantStatus" || command.op === "deleteTenant")
      this.deps.tenantChanged?.(command.tenantId);
  }

  private resolveReached(): void {
    for (let i = this.reached.length - 1; i >= 0; i--) {
      const entry = this.reached[i]!;
      if (entry.seq <= this.applied) {
        this.reached.splice(i, 1);
        entry.resolve();
      }
    }
  }

  /**
   * A submitter still waiting for a command already applied here: a snapshot brought it (its
   * sequence is known once its publish is acked), so its outcome on this node is unknown.
   */
  private settleIfSkipped(id: string): void {
    const waiter = this.waiting.get(id);
    if (waiter?.seq === undefined || waiter.seq > this.applied) return;
    this.waiting.delete(id);
    waiter.resolve({
      ok: false,
      error: new Unavailable("the system state was reloaded from a snapshot meanwhile: retry"),
    });
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, RETRY_AFTER_MS));
  }

  /** Deterministic on every node: the same stream gives the same store. */
  private apply(command: Command): Promise<unknown> {
    switch (command.op) {
      case "createTenant": {
        // Two nodes may check a name's uniqueness at once: the stream's order decides, alike everywhere.
        const holder = this.store.tenantIdByName(nameKey(command.tenant.name));
        if (holder !== undefined && holder !== command.tenant.tenant_id)
          return Promise.reject(new Conflict("a tenant with this name already exists"));
        return this.local.createTenant(command.tenant);
      }
      case "setTenantStatus":
        return this.local.setTenantStatus(command.tenantId, command.status);
      case "deleteTenant":
        return this.local.deleteTenant(command.tenantId);
      case "putRole":
        return this.local.putRole(command.tenantId, command.role);
      case "deleteRole":
        return this.local.deleteRole(command.tenantId, command.name);
      case "recordDenial":
        return this.local.recordDenial(command.denial);
      case "recordAdminEvent":
        return this.local.recordAdminEvent(command.event);
    }
  }

  stop(): void {
    this.stopped = true;
    this.stopConsumer();
  }
}

/** The outcome of a call, whether it throws or rejects. */
async function settle(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

async function ensureSystemStream(jsm: JetStreamManager): Promise<void> {
  try {
    await jsm.streams.info(SYSTEM_STREAM);
  } catch {
    await jsm.streams.add({ name: SYSTEM_STREAM, subjects: [SYSTEM_SUBJECT] }).catch(async (error) => {
      await jsm.streams.info(SYSTEM_STREAM).catch(() => {
        throw error;
      });
    });
  }
}
