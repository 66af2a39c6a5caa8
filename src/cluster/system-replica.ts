/**
 * Cluster-wide system state (docs/cluster.md, "Cluster-wide system state"): each node's
 * SystemStore becomes a replica of the stream `MR_SYSTEM`. Its mutating methods publish a command
 * carrying complete arguments (ids and timestamps fixed by the caller), every node applies the
 * stream in order, and the caller gets the result of its own node's application. Reads stay local.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Conflict } from "../errors.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import type { Role } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import { nameKey, type SystemStore } from "../vault/system-store.ts";

export const SYSTEM_STREAM = "MR_SYSTEM";
export const SYSTEM_SUBJECT = "mr.system";

/** Every command carries the id its submitter waits on (a node's own command may be applied before its publish ack returns). */
type Command = { id?: string } & (
  | { op: "createTenant"; tenant: Tenant }
  | { op: "setTenantStatus"; tenantId: string; status: Tenant["status"] }
  | { op: "deleteTenant"; tenantId: string }
  | { op: "putRole"; tenantId: string; role: Role }
  | { op: "deleteRole"; tenantId: string; name: string }
  | { op: "recordDenial"; denial: Denial }
  | { op: "recordAdminEvent"; event: AdminEvent }
);

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

export class SystemReplica {
  private applied = 0;
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
  private readonly reached: Array<{ seq: number; resolve: () => void }> = [];
  private readonly local: Mutators;
  private stopConsumer = () => {};

  constructor(
    private readonly store: SystemStore,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly log: (line: string) => void,
  ) {
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
   * Applies the whole stream to the (empty) local store, then routes the store's mutators through
   * the stream. The store must have been emptied before (see `resetSystemDir`): the stream, not the
   * local copy, is the source of truth.
   */
  async start(): Promise<void> {
    await ensureSystemStream(this.jsm);
    const consumer = await this.js.consumers.get(SYSTEM_STREAM, { deliver_policy: DeliverPolicy.All });
    const messages = await consumer.consume();
    this.stopConsumer = () => void messages.stop();
    void (async () => {
      for await (const msg of messages) await this.applyOne(msg.seq, msg.json<Command>());
    })();
    await this.catchUp();
    const s = this.store as unknown as Record<keyof Mutators, unknown>;
    s.createTenant = (tenant: Tenant) => this.submit({ op: "createTenant", tenant });
    s.setTenantStatus = (tenantId: string, status: Tenant["status"]) =>
      this.submit({ op: "setTenantStatus", tenantId, status });
    s.deleteTenant = (tenantId: string) => this.submit({ op: "deleteTenant", tenantId });
    s.putRole = (tenantId: string, role: Role) => this.submit({ op: "putRole", tenantId, role });
    s.deleteRole = (tenantId: string, name: string) => this.submit({ op: "deleteRole", tenantId, name });
    s.recordDenial = (denial: Denial) => this.submit({ op: "recordDenial", denial });
    s.recordAdminEvent = (event: AdminEvent) => this.submit({ op: "recordAdminEvent", event });
  }

  /** Resolves once every command published before the call is applied here. */
  async catchUp(): Promise<void> {
    const info = await this.jsm.streams.info(SYSTEM_STREAM);
    const last = info.state.last_seq;
    if (this.applied >= last) return;
    await new Promise<void>((resolve) => this.reached.push({ seq: last, resolve }));
  }

  private async submit(command: Command): Promise<unknown> {
    const id = randomUUID();
    const outcome = new Promise<Outcome>((resolve) => this.waiting.set(id, resolve));
    try {
      await this.js.publish(SYSTEM_SUBJECT, JSON.stringify({ ...command, id }));
    } catch (error) {
      this.waiting.delete(id);
      throw error;
    }
    const settled = await outcome;
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  private async applyOne(seq: number, command: Command): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = { ok: true, value: await this.apply(command) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    this.applied = seq;
    const waiter = command.id === undefined ? undefined : this.waiting.get(command.id);
    if (command.id !== undefined) this.waiting.delete(command.id);
    if (waiter) waiter(outcome);
    else if (!outcome.ok)
      this.log(`[cluster] system command ${seq} (${command.op}) refused: ${outcome.error}`);
    for (let i = this.reached.length - 1; i >= 0; i--) {
      const entry = this.reached[i]!;
      if (entry.seq <= seq) {
        this.reached.splice(i, 1);
        entry.resolve();
      }
    }
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
    this.stopConsumer();
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

/**
 * In cluster mode the local system store is only a replica: it is emptied at start and rebuilt
 * from the stream, so no command is ever applied twice to it.
 */
export function resetSystemReplica(dataDir: string): void {
  rmSync(join(dataDir, "system"), { recursive: true, force: true });
}
