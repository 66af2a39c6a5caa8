/**
 * Tenants' queues attached to a worker the runtime shares among them (the background embedder, the
 * model extractor), and their turns: the least recently served ready tenant first, so that a tenant
 * with a large backlog cannot hold back the others.
 */
export class FairTurns<Q> {
  private readonly attached = new Map<string, Q>();
  /** Tenants whose queue may have work, in the order they woke. */
  private readonly ready = new Set<string>();
  /** When each tenant was last served (a turn counter); one never served comes first. */
  private readonly served = new Map<string, number>();
  private turn = 0;

  /** Attaches a tenant's queue; the function returned detaches it (its actor stops). */
  attach(tenantId: string, queue: Q): () => void {
    this.attached.set(tenantId, queue);
    return () => {
      if (this.attached.get(tenantId) !== queue) return;
      this.attached.delete(tenantId);
      this.ready.delete(tenantId);
      this.served.delete(tenantId);
    };
  }

  queueOf(tenantId: string): Q | undefined {
    return this.attached.get(tenantId);
  }

  queues(): Iterable<Q> {
    return this.attached.values();
  }

  get waiting(): number {
    return this.ready.size;
  }

  /** The tenant's queue may have work (a tenant not attached has none). */
  wake(tenantId: string): void {
    if (this.attached.has(tenantId)) this.ready.add(tenantId);
  }

  /** The tenant has nothing to take for now: it waits until it is woken again. */
  idle(tenantId: string): void {
    this.ready.delete(tenantId);
  }

  /** The ready tenant served least recently (none: no tenant is ready). */
  next(): string | undefined {
    let best: string | undefined;
    let bestTurn = Number.POSITIVE_INFINITY;
    for (const tenantId of this.ready) {
      const turn = this.served.get(tenantId) ?? 0;
      if (turn < bestTurn) [best, bestTurn] = [tenantId, turn];
    }
    return best;
  }

  /** The tenant was given work: it goes after every other ready tenant. */
  servedNow(tenantId: string): void {
    this.served.set(tenantId, ++this.turn);
  }
}
