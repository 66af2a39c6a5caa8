/**
 * The doors as the connector actors call them (actors/connectors/drivers.ts): each checks the
 * tenant's switch first, so a tenant that did not turn its door on sees no change at all.
 */
import type { BridgeEvent } from "../bridge/events.ts";
import { eventProvenance } from "../provenance/source-origin.ts";
import { BRIDGE_SOURCE } from "../provenance/trust.ts";
import { messagingEvent } from "../sources/messaging.ts";
import type { IngestDraft, SourceEvent } from "../sources/types.ts";
import type { ConversationDoor } from "./door.ts";
import { bridgeSession, mailSessions } from "./door-messages.ts";

export interface ConnectorDoors {
  /** A stored bridge event's turn (the bridge actor awaits it). */
  bridge(tenantId: string): (event: BridgeEvent) => Promise<void>;
  /** A committed mail expansion's turns, thread after thread (not awaited by the mail watch). */
  mail(tenantId: string): (event: SourceEvent, drafts: IngestDraft[]) => void;
}

export function connectorDoors(door: ConversationDoor): ConnectorDoors {
  return {
    bridge: (tenantId) => async (event) => {
      if (!door.open("bridge", tenantId)) return;
      const session = bridgeSession(event);
      if (!session) return;
      const provenance = eventProvenance(BRIDGE_SOURCE, messagingEvent(event));
      await door.append("bridge", tenantId, session.sessionId, session.messages, provenance);
    },
    mail: (tenantId) => (event, drafts) => {
      if (!door.open("mail", tenantId)) return;
      const provenance = eventProvenance("mail", event);
      void (async () => {
        for (const session of mailSessions(drafts))
          await door.append("mail", tenantId, session.sessionId, session.messages, provenance);
      })();
    },
  };
}
