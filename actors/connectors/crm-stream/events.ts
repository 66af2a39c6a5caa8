/**
 * One streamed change, ingested: it goes through the ingest pipeline with the new replay position
 * and status as connector state, committed with its entries (or its dead letter, or on its own
 * for a duplicate or an ignored change), so a restart resumes right after it. The next event is
 * handled only after that commit (the actor's mailbox serialises them).
 */
import { errorMessage, type StreamEvent } from "../../../src/connectors/transport.ts";
import type { Arrival } from "../../../src/ingest/deliver.ts";
import type { IngestSummary } from "../../../src/ingest/ingest-item.ts";
import type { CrmStatus } from "../../../src/protocols/connector-protocol.ts";
import { streamEventOf } from "../../../src/sources/crm/source.ts";
import type { SourceEvent } from "../../../src/sources/types.ts";
import type { CrmConnection } from "./connection.ts";
import { CRM_STATE, type CrmReplayState, type CrmStreamState } from "./state.ts";

/** The ingest pipeline, for this tenant and the `crm` source (mapping in force, embeddings, writes). */
export type Deliver = (events: SourceEvent[], arrival: Omit<Arrival, "ctx">) => Promise<IngestSummary>;

export async function ingestStreamEvent(
  gen: number,
  event: StreamEvent,
  { state, connection, deliver }: { state: CrmStreamState; connection: CrmConnection; deliver: Deliver },
): Promise<void> {
  if (!connection.isCurrent(gen) || state.stopping) return;
  const replay: CrmReplayState = {
    channels: { ...state.replay.channels, [event.channel]: event.replayId },
    cursor: event.cursor ?? state.replay.cursor,
  };
  const status: CrmStatus = {
    ...state.snapshot(),
    events: state.status.events + 1,
    last_event_at: state.nowIso(),
    replay: { ...replay.channels },
  };
  try {
    await deliver([streamEventOf(event)], {
      headers: { "x-crm-channel": event.channel, "x-crm-transport": status.transport ?? "" },
      state: [
        [CRM_STATE.replay, replay],
        [CRM_STATE.status, status],
      ],
    });
    state.replay = replay;
    state.status = status;
    connection.succeeded();
  } catch (error) {
    // Not written: drop this connection and resume from the last committed position.
    if (state.stopping || !connection.isLatest(gen)) return;
    connection.drop();
    state.update({ last_error: `write failed: ${errorMessage(error)}`, last_error_at: state.nowIso() });
    connection.scheduleReconnect();
    await state.save();
  }
}
