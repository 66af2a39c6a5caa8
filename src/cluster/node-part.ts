/**
 * One part of a cluster node (its membership, its replica of the system state, its snapshots, its
 * intake, its router), started once after the runtime is composed (serve.ts) and never replaced.
 * What runs before it either waits for it (`get`: 503, retry) or goes without it (`ifStarted`).
 */
import { Unavailable } from "../errors/domain-errors.ts";

/** Seconds a caller waits before retrying what reached the node while it was still starting. */
const STARTING_RETRY_S = 1;

export class NodePart<T> {
  private value: T | undefined;

  /** `what` completes "this node has not … yet": `joined the cluster`. */
  constructor(private readonly what: string) {}

  /** Records the part as started: once only. */
  started(value: T): T {
    if (this.value !== undefined) throw new Error(`this node has ${this.what} already`);
    this.value = value;
    return value;
  }

  get isStarted(): boolean {
    return this.value !== undefined;
  }

  /** The part; asked for only by what runs once it started (Unavailable, retry, before). */
  get(): T {
    if (this.value === undefined)
      throw new Unavailable(`this node has not ${this.what} yet; retry`, STARTING_RETRY_S);
    return this.value;
  }

  /** `use(part)` once it started, else `otherwise` (what may run without it). */
  ifStarted<R>(use: (part: T) => R, otherwise: R): R {
    return this.value === undefined ? otherwise : use(this.value);
  }
}
