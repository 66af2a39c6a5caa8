/**
 * `messaging`: the in-process messaging bridge's source (not an HTTP webhook source). Events arrive
 * through `bridge.deliver` already validated; this module maps them, and maps their dead letters
 * again on replay. A ✅ reaction promotes the message it is on to a decision: the draft names that
 * message's event, and the tenant (which holds the message) fills it in, or dead-letters the
 * reaction as `unknown_message` until the message has arrived.
 */

import { Value } from "@sinclair/typebox/value";
import { BridgeEvent, bridgeEventId, reactedMessageId } from "../bridge/events.ts";
import { BadRequest } from "../errors/domain-errors.ts";
import { clip, finish, sourceOf, tagsOf } from "./kit/draft.ts";
import { freeText, missingField, type Required } from "./kit/required.ts";
import type { IngestDraft, MapResult, SourceEvent, SourceModule } from "./types.ts";

const ID = "messaging";
const PROMOTING_REACTION = "white_check_mark";

/** The source event of a validated bridge event. */
export function messagingEvent(event: BridgeEvent): SourceEvent {
  return { event_id: clip(bridgeEventId(event), 512), event_type: event.type, payload: event };
}

/** A message's `ts` (seconds since the epoch, as text) as the time it became true. */
function validFrom(ts: string): string | undefined {
  const ms = Math.round(Number(ts) * 1000);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
}

/**
 * What each event's entry is built from (kit/required.ts): who, where, when, and for messages and
 * mentions their text (free text: only a blank one is empty). A reaction other than ✅ is ignored
 * before this is asked.
 */
const REQUIRED: Readonly<Record<BridgeEvent["type"], readonly Required[]>> = {
  message: ["channel", "user", "ts", freeText("text")],
  reaction_added: ["user", "item.channel", "item.ts"],
  member_joined_channel: ["channel", "user"],
  app_mention: ["channel", "user", "ts", freeText("text")],
};

function map(event: SourceEvent): MapResult {
  if (!Value.Check(BridgeEvent, event.payload)) return { ok: false, reason: "invalid_payload" };
  const ev = event.payload;
  if (ev.type === "reaction_added" && ev.reaction !== PROMOTING_REACTION)
    return { ok: true, drafts: [], ignored: true };
  const missing = missingField(ev, REQUIRED[ev.type]);
  if (missing) return { ok: false, reason: "missing_field", detail: missing };
  return { ok: true, drafts: [draftOf(ev, sourceOf(ID, event))] };
}

function draftOf(ev: BridgeEvent, source: ReturnType<typeof sourceOf>): IngestDraft {
  switch (ev.type) {
    case "message": {
      const draft = finish({
        category: "fact",
        content: ev.text.trim(),
        tags: tagsOf(
          ID,
          `channel:${ev.channel}`,
          `user:${ev.user}`,
          ev.thread_ts && `thread:${ev.thread_ts}`,
        ),
        data: { channel: ev.channel, user: ev.user, ts: ev.ts, thread_ts: ev.thread_ts },
        valid_from: validFrom(ev.ts),
        source,
      });
      return { draft };
    }
    case "reaction_added": {
      const draft = finish({
        category: "decision",
        content: `Promoted to a decision by ${ev.user}`,
        tags: tagsOf(ID, `channel:${ev.item.channel}`, "promoted"),
        data: { channel: ev.item.channel, ts: ev.item.ts, promoted_by: ev.user },
        valid_from: ev.event_ts ? validFrom(ev.event_ts) : undefined,
        source,
      });
      return { draft, promotes: reactedMessageId(ev) };
    }
    case "member_joined_channel": {
      const draft = finish({
        category: "relationship",
        content: `${ev.user} joined channel ${ev.channel}.`,
        subject: ev.user,
        predicate: "member_of",
        object: ev.channel,
        tags: tagsOf(ID, `channel:${ev.channel}`),
        data: { channel: ev.channel, user: ev.user },
        valid_from: ev.event_ts ? validFrom(ev.event_ts) : undefined,
        source,
      });
      return { draft };
    }
    case "app_mention": {
      const draft = finish({
        category: "workflow",
        content: ev.text.trim(),
        tags: tagsOf(ID, `channel:${ev.channel}`, `user:${ev.user}`, "mention"),
        data: { channel: ev.channel, user: ev.user, ts: ev.ts, thread_ts: ev.thread_ts },
        valid_from: validFrom(ev.ts),
        source,
      });
      return { draft };
    }
  }
}

export const messagingSource: SourceModule = {
  id: ID,
  requiredSecrets: [],
  optionalSecrets: [],
  // Events arrive in-process through the bridge, never over HTTP.
  verify: () => ({ ok: false, reason: "not_a_webhook_source" }),
  parse: () => {
    throw new BadRequest("messaging events arrive through the in-process bridge");
  },
  map,
};
