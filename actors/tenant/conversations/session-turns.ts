/**
 * A session's stored turns, found through its `session:<id>` tag (src/conversations/tags.ts):
 * position → the turn, writes still committing included (the tag index is kept as they stage).
 */
import { sessionTag } from "../../../src/conversations/tags.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import { subjectOf } from "../../../src/models/scope.ts";
import type { EntryStore } from "../memory/entry-store.ts";

export interface StoredTurn {
  position: number;
  digest: string;
  stored: StoredEntry;
}

/** The turn record a turn entry carries in `data.turn` (src/conversations/plan.ts). */
function turnOf(stored: StoredEntry): { position: number; digest: string } | undefined {
  const turn = (stored.entry.data as { turn?: { position?: unknown; message_sha256?: unknown } } | undefined)
    ?.turn;
  if (typeof turn?.position !== "number" || typeof turn.message_sha256 !== "string") return undefined;
  return { position: turn.position, digest: turn.message_sha256 };
}

/**
 * Every stored turn of the session by position (a retracted one still holds its position). A
 * session is named by its id within its subject: two subjects' sessions of one id are two sessions.
 */
export function sessionTurns(
  entries: EntryStore,
  sessionId: string,
  subject: string | undefined,
): Map<number, StoredTurn> {
  const out = new Map<number, StoredTurn>();
  for (const stored of entries.scanTag(sessionTag(sessionId))) {
    const { entry } = stored;
    if (entry.category !== "fact" || entry.session_id !== sessionId || subjectOf(entry) !== subject) continue;
    const turn = turnOf(stored);
    if (turn && !out.has(turn.position)) out.set(turn.position, { ...turn, stored });
  }
  return out;
}

/** The position after the session's last stored turn (0 for a new session). */
export function nextPosition(turns: Map<number, StoredTurn>): number {
  let next = 0;
  for (const position of turns.keys()) next = Math.max(next, position + 1);
  return next;
}
