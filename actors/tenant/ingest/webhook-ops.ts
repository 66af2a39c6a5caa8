/**
 * The tenant actor's part of the webhook operations (docs/webhook-operations.md): pausing and
 * resuming a source, releasing its held events one by one, the delivery log, the dead letters a
 * bulk replay selects, their discard (discard.ts), retention. The actor's mailbox serialises them
 * with every delivery, so a delivery is either held or applied, never both, and an event is
 * released once; a letter is discarded or replayed, never both.
 */
import { markUpkeep, setUpkeepDue } from "../../../src/ingest/upkeep-marker.ts";
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import type { SourceState, SourceStatus } from "../../../src/models/webhook-operations.ts";
import type {
  DeadLetterSelection,
  SourceFigures,
  WebhookOpsProtocol,
} from "../../../src/protocols/webhook-ops-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { later } from "../../../src/runtime/later.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { SliceHandlers } from "../slice.ts";
import { discardOne, discardSet } from "./discard.ts";
import type { TenantIngest } from "./ingest.ts";
import { purgeSet } from "./retention.ts";

export interface WebhookOpsDeps {
  ingest: TenantIngest;
  vault: TenantVault;
  clock: Clock;
  /** New entries were written (the index flush is scheduled). */
  onEntries: () => void;
}

export function webhookOpsHandlers(deps: WebhookOpsDeps): SliceHandlers<keyof WebhookOpsProtocol & string> {
  const { ingest, vault, clock } = deps;
  const heldOf = (source: string) => ingest.held.counts().get(source) ?? 0;
  const setState = (source: string, status: SourceStatus, resuming: boolean, changedAt = clock.now()) => {
    const state: SourceState = { status, resuming, changed_at: changedAt };
    return vault.write(emptySet({ webhooks: { sources: [[source, state]] } }));
  };
  // A discarded letter expires `deadLetterDays` after its discard: the upkeep must look by then.
  const discarding = (set: WriteSet) => {
    markUpkeep(vault.dir, clock.now());
    return vault.write(set);
  };
  return {
    "source.pause": ({ source }) => {
      const current = ingest.held.state(source);
      if (current?.status === "paused" && !current.resuming)
        return { status: "paused" as const, held: heldOf(source) };
      // Looked at by every pass of the upkeep while paused (src/ingest/upkeep-marker.ts).
      setUpkeepDue(vault.dir, 0);
      // Pausing a source whose resume is under way stops the release where it is.
      const committed = setState(source, "paused", false);
      // Counted now, in the actor's turn: once the commit settles the actor may have stopped and
      // closed the vault (a tenant deleted meanwhile), and a state write changes no held count.
      const held = heldOf(source);
      return later(committed.then(() => ({ status: "paused" as const, held })));
    },
    "source.resume": ({ source }) => {
      const current = ingest.held.state(source);
      if (current?.status !== "paused") return { status: "active" as const, held: heldOf(source) };
      if (current.resuming) return { status: "paused" as const, held: heldOf(source) };
      // Due at once: should the process stop before the release ends, the upkeep continues it.
      setUpkeepDue(vault.dir, 0);
      const committed = setState(source, "paused", true, current.changed_at);
      const held = heldOf(source);
      return later(committed.then(() => ({ status: "paused" as const, held })));
    },
    "held.next": ({ source }) => {
      const state = ingest.held.state(source);
      if (state?.status !== "paused" || !state.resuming)
        return { status: state?.status ?? "active", resuming: false };
      const next = ingest.held.oldest(source);
      if (next) return { next, status: "paused" as const, resuming: true };
      // The last one is released: arrivals from now on are applied as they come.
      const committed = setState(source, "active", false);
      return later(committed.then(() => ({ status: "active" as const, resuming: false })));
    },
    "held.apply": ({ source, seq, item, requestId }) => {
      const { reply, committed } = ingest.applyHeld(source, seq, item, requestId);
      if (reply.entries.length > 0) deps.onEntries();
      return later(committed.then(() => reply));
    },
    "sources.figures": () => figures(ingest),
    "deliveries.page": (query) => ingest.log.page(query, query.limit, query.cursor),
    "deadletter.select": (selection) => select(ingest.store.allDeadLetters() as DeadLetter[], selection),
    "deadletter.discard": ({ eventId, source, by, requestId }) => {
      const { reply, set } = discardOne(ingest, { eventId, source }, { by, requestId }, clock.now());
      if (!set) return { letter: reply, discarded: false };
      return later(discarding(set).then(() => ({ letter: reply, discarded: true })));
    },
    "deadletter.discardSelected": ({ selection, by, requestId }) => {
      const { letters, more } = select(ingest.store.allDeadLetters() as DeadLetter[], selection);
      const last = letters[letters.length - 1];
      if (!last) return { letters: [], more };
      const { replies, set } = discardSet(ingest, letters, { by, requestId }, clock.now());
      return later(discarding(set).then(() => ({ letters: replies, more, last })));
    },
    "webhooks.purge": ({ now, retention }) => {
      const { report, set } = purgeSet(ingest, now, retention);
      // Set in the handler, before any later message can log a record the report did not see.
      setUpkeepDue(vault.dir, report.next_due);
      if (report.next_due === null) ingest.log.rearm();
      if (!set) return report;
      const committed = vault.write(set).catch((error) => {
        setUpkeepDue(vault.dir, 0); // nothing was removed: look again
        throw error;
      });
      return later(committed.then(() => report));
    },
  };
}

/** Per source: its pause state, its held events, its dead letters not replayed. */
function figures(ingest: TenantIngest): Record<string, SourceFigures> {
  const out: Record<string, SourceFigures> = {};
  const of = (source: string) => {
    out[source] ??= { held: 0, dead_letters: 0 };
    return out[source];
  };
  for (const [source, state] of ingest.held.states()) of(source).state = state;
  for (const [source, n] of ingest.held.counts()) of(source).held = n;
  for (const letter of ingest.store.allDeadLetters() as DeadLetter[])
    if (letter.status === "dead") of(letter.source).dead_letters++;
  return out;
}

/** Arrival order: received_at, then event id and source (stable, and what a cursor names). */
function arrival(a: Pick<DeadLetter, "received_at" | "event_id" | "source">, b: typeof a): number {
  return (
    a.received_at.localeCompare(b.received_at) ||
    a.event_id.localeCompare(b.event_id) ||
    a.source.localeCompare(b.source)
  );
}

/** Dead letters still dead that match, oldest first, after the cursor's position. */
export function select(all: DeadLetter[], s: DeadLetterSelection): { letters: DeadLetter[]; more: boolean } {
  const matching = all
    .filter((r) => {
      const at = Date.parse(r.received_at);
      return (
        r.status === "dead" &&
        (s.source === undefined || r.source === s.source) &&
        (s.event_type === undefined || r.event_type === s.event_type) &&
        (s.from === undefined || at >= s.from) &&
        (s.to === undefined || at <= s.to) &&
        (s.after === undefined || arrival(r, s.after) > 0)
      );
    })
    .sort(arrival);
  return { letters: matching.slice(0, s.limit), more: matching.length > s.limit };
}
