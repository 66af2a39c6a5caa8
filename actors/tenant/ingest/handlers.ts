import { later } from "../../../src/runtime/later.ts";
import type { SliceHandlers } from "../slice.ts";
import { deadLetterOf, listDeadLetters, replayable } from "./dead-letters.ts";
import type { TenantIngest } from "./ingest.ts";

type IngestMessages =
  | "webhook.ingest"
  | "webhook.seen"
  | "deadletter.list"
  | "deadletter.get"
  | "deadletter.resolve"
  | "connector.state.get"
  | "connector.state.put";

/** The ingest part of the tenant protocol: deliveries, dead letters and connectors' state. */
export function ingestHandlers(ingest: TenantIngest, onEntries: () => void): SliceHandlers<IngestMessages> {
  const { store } = ingest;
  return {
    "webhook.ingest": ({ delivery }) => {
      const { summary, committed } = ingest.ingest(delivery);
      if (summary.entries.length > 0) onEntries();
      return later(committed.then(() => summary));
    },
    "webhook.seen": ({ source, eventId }) => ingest.admission(source, eventId),
    "deadletter.list": ({ status, limit }) => listDeadLetters(store, status, limit),
    "deadletter.get": ({ eventId, source }) => replayable(deadLetterOf(store, eventId, source)),
    "deadletter.resolve": ({ eventId, source, item, requestId }) => {
      const { reply, committed } = ingest.resolve(eventId, source, item, requestId ?? null);
      return later(committed.then(() => reply));
    },
    "connector.state.get": ({ key }) => store.connectorState(key),
    "connector.state.put": ({ key, value }) => later(ingest.writeState([[key, value]]).then(() => undefined)),
  };
}
