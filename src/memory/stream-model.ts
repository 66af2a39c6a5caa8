import { Type } from "@sinclair/typebox";
import { CATEGORIES } from "../models/category.ts";
import { TextMatching } from "../models/checked-kind.ts";
import { QueryObject } from "../models/common.ts";
import { sentAs } from "../models/media-type.ts";
import { SCOPE_FILTERS } from "../models/scope.ts";

/** A position in the tenant's change log, as SSE `id:` lines carry it: decimal digits. */
const LAST_EVENT_ID_PATTERN = "^[0-9]{1,15}$";

/**
 * A comma-separated list as the route reads it (src/memory/entry-stream-source.ts): blanks around
 * an item and empty items are ignored, so the pattern allows them; `item` is one item, trimmed.
 */
const commaList = (item: string) => `^\\s*(?:${item}\\s*)?(?:,\\s*(?:${item}\\s*)?)*$`;
const CATEGORY_NAME = `(?:${CATEGORIES.join("|")})`;
/** A tag: 1–64 characters, no comma, no blank at either end. */
const TAG = "[^,\\s](?:[^,]{0,62}[^,\\s])?";

/** `GET /memory/stream?categories=&tags=&last_event_id=`: the lists are parsed by the route (commas). */
export const StreamQuery = QueryObject({
  categories: Type.Optional(
    TextMatching({
      pattern: commaList(CATEGORY_NAME),
      maxLength: 256,
      description: `Comma-separated singular category names (\`fact,decision\`: ${CATEGORIES.join(", ")}); blanks around a name and empty items are ignored; none named (\`categories=\`): every category the caller may read, as when absent`,
      rule: `a comma-separated list of category names: ${CATEGORIES.join(", ")}`,
    }),
  ),
  tags: Type.Optional(
    TextMatching({
      pattern: commaList(TAG),
      maxLength: 64 * 65,
      description:
        "Comma-separated tags, each 1–64 characters (blanks around a tag and empty items are ignored): an entry must carry all of them. At most 64 distinct tags (422 beyond)",
      rule: "comma-separated tags of 1–64 characters each",
    }),
  ),
  ...SCOPE_FILTERS,
  last_event_id: Type.Optional(
    Type.String({
      pattern: LAST_EVENT_ID_PATTERN,
      description:
        "Resume after this change position, for clients that cannot set `Last-Event-ID` (the header wins)",
    }),
  ),
});

export const StreamHeaders = Type.Object({
  "last-event-id": Type.Optional(
    Type.String({
      pattern: LAST_EVENT_ID_PATTERN,
      description: "Resume after this change position: the id of the last event received",
    }),
  ),
});

/** The 200 answer: an endless `text/event-stream` body (the OpenAPI document describes its events). */
export const EntryEventStream = sentAs(
  "text/event-stream",
  Type.String({
    description: [
      "Server-sent events, one per change of the caller's tenant that the caller may read, oldest first:",
      "`id: <change seq>`, `event: <entry.created | entry.superseded | entry.corrected | entry.retracted | entry.erased | decision.resolved | exception.resolved>`,",
      '`data: {"change": {seq, at, type, id, category, by, related?}, "entry": <the entry as GET /memory/{category}/{id} answers it now>}`',
      "(one line of JSON; for `entry.erased`, `entry` is only `{id, category, erased_at}`).",
      "With `subject`, `session_id` or `agent_id`, or for a subject-restricted token, only entries of that scope, and no `entry.erased` (an erased entry's scope is gone with it).",
      "The stream starts with a `retry:` hint; `: ping` comments keep it alive (MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS).",
      "It ends at the token's `exp`, when the tenant is suspended or deleted, and when the client falls too far behind;",
      "reconnect with `Last-Event-ID` to get exactly what was missed.",
    ].join(" "),
  }),
);
