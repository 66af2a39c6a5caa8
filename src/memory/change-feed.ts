import type { Change } from "../models/change.ts";

export type ChangeListener = (changes: Change[]) => void;

/**
 * The live side of the change log: each tenant vault publishes its committed changes here, and
 * whoever follows the tenant (the live stream, the outbound deliveries) listens. It lives outside
 * the tenant actor, so a listener outlives the actor's passivation: the next commit, whenever the
 * actor starts again, reaches it. Nothing is buffered here; a listener that missed something reads
 * the durable log from its last position.
 */
export class ChangeFeeds {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  publish(tenantId: string, changes: Change[]): void {
    const set = this.listeners.get(tenantId);
    if (!set) return;
    for (const listener of [...set]) listener(changes);
  }

  /** Listens to one tenant's commits; the returned function stops listening. */
  subscribe(tenantId: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(tenantId);
    if (!set) {
      set = new Set();
      this.listeners.set(tenantId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(tenantId) === set) this.listeners.delete(tenantId);
    };
  }

  listenerCount(tenantId: string): number {
    return this.listeners.get(tenantId)?.size ?? 0;
  }
}
