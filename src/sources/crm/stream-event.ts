/**
 * A CRM stream event (server-sent events or Bayeux) as a source event of the `crm` source. Change
 * events keep their header, so `crmSource.map` maps them with change semantics (one record per
 * record id; DELETE and gap events ignored), the same when streamed and when a dead letter of one
 * is replayed. Events that are not change events keep their raw payload.
 */
import type { StreamEvent } from "../../connectors/transport.ts";
import { clip } from "../kit/draft.ts";
import type { SourceEvent } from "../types.ts";
import { changeEventOf } from "./records.ts";

export function streamEventOf(event: StreamEvent): SourceEvent {
  const eventId = clip(event.eventUuid ?? `${event.channel}:${event.replayId}`, 512);
  const change = changeEventOf(event.payload, eventId);
  if (!change) {
    return {
      event_id: eventId,
      event_type: "crm.stream_event",
      payload: { channel: event.channel, replay_id: event.replayId, payload: event.payload },
    };
  }
  const header = (event.payload as { ChangeEventHeader?: unknown }).ChangeEventHeader;
  return {
    event_id: eventId,
    event_type: clip(`${change.entityName}.${change.changeType}`, 128),
    payload: {
      object_type: change.entityName,
      fields: { ...(change.recordIds[0] ? { Id: change.recordIds[0] } : {}), ...change.fields },
      change_event_header: header,
      channel: event.channel,
      replay_id: event.replayId,
    },
  };
}
