import type { Telemetry } from "../telemetry/telemetry.ts";
import type { Clock, TimerHandle } from "./clock.ts";
import { Later } from "./later.ts";
import { Mailbox } from "./mailbox.ts";
import type { Behaviour, BehaviourFactory, MessageOf, Protocol, ReplyOf } from "./protocol.ts";

export interface ActorFailure {
  kind: string;
  key: string;
  type: string;
  error: unknown;
  /** A `tell` has nobody waiting for its result, so its failure is reported here and only here. */
  via: "ask" | "tell" | "start" | "stop" | "crash";
}

export interface ActorSystemOptions {
  clock: Clock;
  /** Passivate an actor after this long without messages; `Infinity` keeps actors alive. */
  idleMs: number;
  /**
   * At most this many actors of a kind are started at once: starting one more passivates the
   * least recently used (each tenant actor holds open files). Default: unbounded.
   */
  maxActive?: number;
  /** Whether an error thrown by a handler is a crash (restart the actor) or an ordinary reply. */
  isCrash?: (error: unknown) => boolean;
  onFailure?: (failure: ActorFailure) => void;
  /** Times each message by kind and type, in a child span of its asker's (src/telemetry/). */
  telemetry?: Telemetry;
}

export interface ActorRef<P extends Protocol> {
  readonly key: string;
  ask<K extends keyof P & string>(msg: MessageOf<P, K>): Promise<ReplyOf<P, K>>;
  tell(msg: MessageOf<P>): void;
}

/**
 * The actors of one kind, reached by its name: what is composed before the kind is made (it is
 * made from what uses this address) sends it messages so. `ActorKind` is one too.
 */
export interface ActorAddress<P extends Protocol> {
  ask<K extends keyof P & string>(key: string, msg: MessageOf<P, K>): Promise<ReplyOf<P, K>>;
  tell(key: string, msg: MessageOf<P>): void;
  ref(key: string): ActorRef<P>;
}

/** One live actor: its mailbox, its behaviour once started, and its idle timer. */
class ActorCell<P extends Protocol> {
  readonly mailbox = new Mailbox();
  behaviour: Behaviour<P> | undefined;
  lastActive = 0;
  idleTimer: TimerHandle | undefined;
  restarts = 0;

  constructor(
    readonly key: string,
    /** Resources this actor may need are released only once these stops complete. */
    readonly previousStops: Promise<void>[],
  ) {}
}

/** A kind of actor (e.g. `tenant`): starts one actor per key on its first message. */
export class ActorKind<P extends Protocol> {
  private readonly cells = new Map<string, ActorCell<P>>();
  private readonly stopping = new Map<string, Promise<void>>();
  private restartCount = 0;

  constructor(
    readonly name: string,
    private readonly factory: BehaviourFactory<P>,
    private readonly options: ActorSystemOptions,
  ) {}

  ref(key: string): ActorRef<P> {
    return {
      key,
      ask: (msg) => this.ask(key, msg),
      tell: (msg) => this.tell(key, msg),
    };
  }

  ask<K extends keyof P & string>(key: string, msg: MessageOf<P, K>): Promise<ReplyOf<P, K>> {
    const cell = this.cellFor(key);
    const reply = cell.mailbox.enqueue(() => this.deliver(cell, msg));
    return reply.then((out) => (out instanceof Later ? out.promise : out)) as Promise<ReplyOf<P, K>>;
  }

  tell(key: string, msg: MessageOf<P>): void {
    this.ask(key, msg).catch((error) => this.report({ key, type: msg.type, error, via: "tell" }));
  }

  /** Keys of the actors currently started (not passivated). */
  active(): string[] {
    return [...this.cells.keys()];
  }

  isActive(key: string): boolean {
    return this.cells.has(key);
  }

  get restarts(): number {
    return this.restartCount;
  }

  /** Messages in the mailboxes of started actors (waiting or being processed). */
  mailboxDepth(): number {
    let depth = 0;
    for (const cell of this.cells.values()) depth += cell.mailbox.depth;
    return depth;
  }

  /** Stops one actor after the messages already in its mailbox. */
  passivate(key: string): Promise<void> {
    const cell = this.cells.get(key);
    if (!cell) return this.stopping.get(key) ?? Promise.resolve();
    this.cells.delete(key);
    cell.idleTimer?.cancel();
    const done = cell.mailbox
      .enqueue(() => this.stopBehaviour(cell))
      .finally(() => {
        if (this.stopping.get(key) === done) this.stopping.delete(key);
      });
    this.stopping.set(key, done);
    return done;
  }

  /** Drains every mailbox and stops every actor (SIGTERM). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.cells.keys()].map((key) => this.passivate(key)));
    await Promise.all([...this.stopping.values()]);
  }

  private cellFor(key: string): ActorCell<P> {
    let cell = this.cells.get(key);
    if (cell) {
      // Map order is recency order: the first cell is the least recently used.
      this.cells.delete(key);
    } else {
      const waits = [this.stopping.get(key), this.evictForRoom()].filter((p) => p !== undefined);
      cell = new ActorCell<P>(key, waits);
    }
    this.cells.set(key, cell);
    cell.lastActive = this.options.clock.now();
    this.armIdleTimer(cell);
    return cell;
  }

  /**
   * When the kind is at its bound, passivates the least recently used actor (an idle one first) and
   * returns its stop, which the newcomer waits for before it opens its own resources.
   */
  private evictForRoom(): Promise<void> | undefined {
    const max = this.options.maxActive;
    if (max === undefined || this.cells.size < max) return undefined;
    let victim: ActorCell<P> | undefined;
    for (const cell of this.cells.values()) {
      victim ??= cell;
      if (cell.mailbox.depth === 0) {
        victim = cell;
        break;
      }
    }
    return victim ? this.passivate(victim.key) : undefined;
  }

  private async deliver(cell: ActorCell<P>, msg: MessageOf<P>): Promise<unknown> {
    const behaviour = await this.started(cell);
    const handler = behaviour.handlers[msg.type as keyof P & string];
    if (!handler) throw new TypeError(`actor ${this.name} has no handler for "${msg.type}"`);
    const telemetry = this.options.telemetry;
    try {
      // The mailbox runs the job in its asker's async context: the span is the asker's child.
      return await (telemetry
        ? telemetry.time("actor.message", [this.name, msg.type], () => Promise.resolve(handler(msg as never)))
        : handler(msg as never));
    } catch (error) {
      if (this.options.isCrash?.(error) ?? true) await this.crashed(cell, msg.type, error);
      throw error;
    }
  }

  /** Lazy start: the first message (or the first after a crash) builds the behaviour. */
  private async started(cell: ActorCell<P>): Promise<Behaviour<P>> {
    if (cell.behaviour) return cell.behaviour;
    // A passivated predecessor (or an evicted neighbour) must have released its resources first.
    if (cell.previousStops.length > 0) await Promise.all(cell.previousStops);
    try {
      cell.behaviour = await this.factory(cell.key);
    } catch (error) {
      this.report({ key: cell.key, type: "start", error, via: "start" });
      // Nothing else waiting: forget the cell, so a failed start holds no slot of a bounded kind.
      if (cell.mailbox.depth <= 1 && this.cells.get(cell.key) === cell) {
        this.cells.delete(cell.key);
        cell.idleTimer?.cancel();
      }
      throw error;
    }
    return cell.behaviour;
  }

  /** Restart after a crash: release resources now; the next message starts a fresh behaviour. */
  private async crashed(cell: ActorCell<P>, type: string, error: unknown): Promise<void> {
    this.report({ key: cell.key, type, error, via: "crash" });
    await this.stopBehaviour(cell);
    cell.restarts++;
    this.restartCount++;
  }

  private async stopBehaviour(cell: ActorCell<P>): Promise<void> {
    const behaviour = cell.behaviour;
    cell.behaviour = undefined;
    try {
      await behaviour?.stop?.();
    } catch (error) {
      this.report({ key: cell.key, type: "stop", error, via: "stop" });
    }
  }

  private armIdleTimer(cell: ActorCell<P>): void {
    if (cell.idleTimer || !Number.isFinite(this.options.idleMs)) return;
    cell.idleTimer = this.options.clock.setTimeout(() => this.checkIdle(cell), this.options.idleMs);
  }

  private checkIdle(cell: ActorCell<P>): void {
    cell.idleTimer = undefined;
    if (this.cells.get(cell.key) !== cell) return;
    const idleFor = this.options.clock.now() - cell.lastActive;
    if (idleFor >= this.options.idleMs && cell.mailbox.depth === 0) {
      void this.passivate(cell.key);
      return;
    }
    // Still busy past its idle time: looked at again a whole idle period later, not at the next
    // millisecond (a manual clock moved days ahead while a message waits would spin on it).
    const wait = idleFor >= this.options.idleMs ? this.options.idleMs : this.options.idleMs - idleFor;
    cell.idleTimer = this.options.clock.setTimeout(() => this.checkIdle(cell), wait);
  }

  private report(failure: Omit<ActorFailure, "kind">): void {
    const sink = this.options.onFailure ?? defaultFailureSink;
    sink({ kind: this.name, ...failure });
  }
}

function defaultFailureSink(failure: ActorFailure): void {
  const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
  console.error(`[actor ${failure.kind}:${failure.key}] ${failure.via} ${failure.type} failed: ${message}`);
}

/** The registry of actor kinds; one per process. */
export class ActorSystem {
  private readonly kinds: ActorKind<Protocol>[] = [];

  constructor(readonly options: ActorSystemOptions) {}

  kind<P extends Protocol>(
    name: string,
    factory: BehaviourFactory<P>,
    overrides: Partial<ActorSystemOptions> = {},
  ) {
    const kind = new ActorKind<P>(name, factory, { ...this.options, ...overrides });
    this.kinds.push(kind as unknown as ActorKind<Protocol>);
    return kind;
  }

  /**
   * The kind named `name`, found when each message is sent (a message to a kind never made fails).
   * The composition (src/compose/) addresses so the kinds made from what messages them: the system
   * actor (its tenant erasure stops the outbound workers, which record audit events with it) and
   * the mail watch (it delivers into the ingest pipeline, which expands mail notifications with it).
   */
  address<P extends Protocol>(name: string): ActorAddress<P> {
    const kind = () => {
      const found = this.kinds.find((k) => k.name === name);
      if (!found) throw new Error(`no actor kind "${name}"`);
      return found as unknown as ActorKind<P>;
    };
    return {
      ask: (key, msg) => kind().ask(key, msg),
      tell: (key, msg) => kind().tell(key, msg),
      ref: (key) => ({ key, ask: (msg) => kind().ask(key, msg), tell: (msg) => kind().tell(key, msg) }),
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.kinds.map((k) => k.stopAll()));
  }

  /** Each kind's figures now (metrics read them at scrape time). */
  census(): Array<{ kind: string; active: number; depth: number; restarts: number }> {
    return this.kinds.map((k) => ({
      kind: k.name,
      active: k.active().length,
      depth: k.mailboxDepth(),
      restarts: k.restarts,
    }));
  }
}
