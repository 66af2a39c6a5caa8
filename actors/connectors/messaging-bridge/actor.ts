// One folder per connector actor: the bridge's actor; the bridge itself (src/bridge/) stays in src/, which src/lib.ts exports.
/**
 * The messaging bridge's connector actor for one tenant (`messaging-bridge:<tenant>`): its mailbox
 * keeps the tenant's bridge deliveries in order, each one going through the ingest pipeline and
 * committed before the next starts. Its status commits with each event, where the tenant's health
 * reads it (`connectors.messaging`).
 */
import type { BridgeEvent } from "../../../src/bridge/events.ts";
import type { Arrival } from "../../../src/ingest/deliver.ts";
import type { IngestReply } from "../../../src/ingest/ingest-item.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { BridgeProtocol, BridgeStatus } from "../../../src/protocols/connector-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { Behaviour } from "../../../src/runtime/protocol.ts";
import { messagingEvent } from "../../../src/sources/messaging.ts";
import type { SourceEvent } from "../../../src/sources/types.ts";

export interface BridgeDeps {
  clock: Clock;
  /** The ingest pipeline for this tenant and the `messaging` source. */
  deliver: (events: SourceEvent[], arrival: Omit<Arrival, "ctx">) => Promise<IngestReply>;
  /**
   * A new message's thread, appended as a conversation session where the tenant turns it on
   * (src/conversations/door.ts); awaited, so a thread's turns keep the order of its messages.
   */
  converse?: (event: BridgeEvent) => Promise<void>;
}

const STATUS_KEY = "status:messaging";

export function messagingBridgeBehaviour(deps: BridgeDeps): Behaviour<BridgeProtocol> {
  let status: BridgeStatus = { state: "active", events: 0, last_event_at: null, last_error: null };
  return {
    handlers: {
      "bridge.deliver": async ({ event }) => {
        const next: BridgeStatus = {
          ...status,
          events: status.events + 1,
          last_event_at: isoOf(deps.clock.now()),
        };
        try {
          const summary = await deps.deliver([messagingEvent(event)], {
            headers: { "x-bridge-event": event.type },
            state: [[STATUS_KEY, next]],
          });
          status = next;
          // Only a message stored now: a redelivery's turn is in its session already.
          if (summary.entries.length > 0 && summary.duplicates === 0) await deps.converse?.(event);
          return {
            entries: summary.entries,
            duplicates: summary.duplicates,
            dead_lettered: summary.dead_lettered,
            ignored: summary.ignored,
            held: summary.held.length,
          };
        } catch (error) {
          status = { ...status, last_error: error instanceof Error ? error.message : String(error) };
          throw error;
        }
      },
      "bridge.status": () => status,
    },
  };
}
