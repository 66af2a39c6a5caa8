/**
 * The messaging bridge's events (SOURCES.md, "The messaging bridge"), as a chat platform's adapter
 * hands them over in-process. Validated with TypeBox: a malformed event is refused before anything
 * is written. Real events carry more fields than these (blocks, team, client ids): they are kept.
 */
import { type Static, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { Chars } from "../models/chars.ts";

/** A message timestamp as chat platforms write it: seconds, a dot, a sequence (`1700000000.000100`). */
const Ts = Type.String({ pattern: "^\\d{1,12}(\\.\\d{1,9})?$" });
const Id = Chars(1, 128);
const Text = Chars(0, 32_768);

const Message = Type.Object({
  type: Type.Literal("message"),
  channel: Id,
  user: Id,
  text: Text,
  ts: Ts,
  thread_ts: Type.Optional(Ts),
});

const ReactionAdded = Type.Object({
  type: Type.Literal("reaction_added"),
  user: Id,
  reaction: Chars(1, 128),
  item: Type.Object({ type: Type.Optional(Type.String()), channel: Id, ts: Ts }),
  event_ts: Type.Optional(Ts),
});

const MemberJoined = Type.Object({
  type: Type.Literal("member_joined_channel"),
  user: Id,
  channel: Id,
  event_ts: Type.Optional(Ts),
});

const AppMention = Type.Object({
  type: Type.Literal("app_mention"),
  user: Id,
  text: Text,
  ts: Ts,
  channel: Id,
  thread_ts: Type.Optional(Ts),
});

export const BridgeEvent = Type.Union([Message, ReactionAdded, MemberJoined, AppMention]);
export type BridgeEvent = Static<typeof BridgeEvent>;

const check = TypeCompiler.Compile(BridgeEvent);

/** A malformed bridge event: what was wrong, by path; nothing was written. */
export class BridgeEventInvalid extends ValidationFailed {}

/** The event if it is one of the four, else BridgeEventInvalid. */
export function validBridgeEvent(value: unknown): BridgeEvent {
  if (check.Check(value)) return value;
  const errors = [...check.Errors(value)]
    .slice(0, 10)
    .map((e) => ({ path: e.path || "/", message: e.message }));
  const type = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
  throw new BridgeEventInvalid(
    typeof type === "string" &&
      ["message", "reaction_added", "member_joined_channel", "app_mention"].includes(type)
      ? `malformed ${type} event`
      : "not a bridge event: type must be message, reaction_added, member_joined_channel or app_mention",
    errors,
  );
}

/**
 * `{channel}:{ts}:{type}`. A reaction is keyed by the message it is on (a second ✅ on one message
 * promotes nothing new); a join, which has no message ts, by its event ts or else the user.
 */
export function bridgeEventId(event: BridgeEvent): string {
  switch (event.type) {
    case "reaction_added":
      return `${event.item.channel}:${event.item.ts}:${event.type}`;
    case "member_joined_channel":
      return `${event.channel}:${event.event_ts ?? event.user}:${event.type}`;
    default:
      return `${event.channel}:${event.ts}:${event.type}`;
  }
}

/** The event id of the message a reaction is on. */
export function reactedMessageId(event: Extract<BridgeEvent, { type: "reaction_added" }>): string {
  return `${event.item.channel}:${event.item.ts}:message`;
}
