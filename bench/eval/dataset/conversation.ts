/**
 * One conversation: two friends, 19–28 dated sessions of small talk and life events, and every
 * question its turns can answer (later sampled per category).
 */
import { chatter, closing, opening } from "./chatter.ts";
import { crossQuestions } from "./cross-questions.ts";
import {
  type EpisodeContext,
  type EpisodeKind,
  type Line,
  newPerson,
  type Person,
  type QuestionDraft,
} from "./episode.ts";
import { INTRODUCTIONS, LIFE_EVENTS } from "./episodes/index.ts";
import { NameBook } from "./name-book.ts";
import type { Rng } from "./prng.ts";
import { SessionBuilder, type Turn } from "./session-builder.ts";
import { addDays } from "./time.ts";

export interface Session {
  index: number;
  date: Date;
  turns: Turn[];
}

export interface Conversation {
  speakers: [Person, Person];
  sessions: Session[];
  /** Every candidate question, evidence still as Line objects. */
  drafts: QuestionDraft[];
  /** The `D<session>:<turn>` id of every line placed. */
  ids: Map<Line, string>;
}

/** The earliest session a move may happen in (a home must be established first). */
const FIRST_MOVE_SESSION = 5;

function chooseKind(rng: Rng, person: Person, session: number): EpisodeKind | undefined {
  const weights: Record<string, number> = {};
  for (const kind of LIFE_EVENTS) {
    if ((person.counts.get(kind.id) ?? 0) >= kind.max) continue;
    if (kind.ready && !kind.ready(person)) continue;
    if (kind.id === "move" && session < FIRST_MOVE_SESSION) continue;
    weights[kind.id] = kind.weight;
  }
  const id = rng.weighted(weights);
  return LIFE_EVENTS.find((kind) => kind.id === id);
}

function sessionDates(rng: Rng, count: number): Date[] {
  // Between 2021 and 2023, well before any "now", so every fact is valid when searched.
  let day = addDays(new Date(Date.UTC(2021, 0, 4)), rng.int(0, 300));
  const dates: Date[] = [];
  for (let i = 0; i < count; i++) {
    const minutes = rng.int(9 * 60, 22 * 60);
    dates.push(new Date(day.getTime() + minutes * 60_000));
    day = addDays(day, rng.int(6, 30));
  }
  return dates;
}

export function generateConversation(
  rng: Rng,
  speakerA: string,
  speakerB: string,
  pronouns: ["she" | "he", "she" | "he"],
): Conversation {
  const names = new NameBook(rng.fork());
  names.reserve(speakerA, speakerB);
  const a = newPerson(speakerA, pronouns[0]);
  const b = newPerson(speakerB, pronouns[1]);
  const ids = new Map<Line, string>();
  const drafts: QuestionDraft[] = [];
  const dates = sessionDates(rng, rng.int(19, 28));
  const sessions: Session[] = [];

  const tell = (builder: SessionBuilder, kind: EpisodeKind, owner: Person, spoken: Date) => {
    const partner = owner === a ? b : a;
    const ctx: EpisodeContext = { rng, owner, partner, spoken, names };
    const episode = kind.make(ctx);
    owner.counts.set(kind.id, (owner.counts.get(kind.id) ?? 0) + 1);
    builder.episode(episode.lines, owner.name, partner.name);
    drafts.push(...episode.questions);
  };

  dates.forEach((date, i) => {
    const index = i + 1;
    const builder = new SessionBuilder(index, rng, ids);
    const said = new Set<string>();
    const opener = rng.chance(0.5) ? a : b;
    const listener = opener === a ? b : a;
    builder.episode(
      opening(rng, listener.name, opener.name).map((text, n) => ({ by: n % 2 ? "partner" : "owner", text })),
      opener.name,
      listener.name,
    );
    const plan: [EpisodeKind, Person][] = [];
    if (index === 1) plan.push([INTRODUCTIONS.home, a], [INTRODUCTIONS.home, b], [INTRODUCTIONS.job, opener]);
    else if (index === 2) plan.push([INTRODUCTIONS.job, listener]);
    const events = index === 1 ? 0 : rng.int(index === 2 ? 1 : 2, 3);
    const small = rng.int(2, 5);
    const slots = rng.shuffle([...Array(events).fill("event"), ...Array(small).fill("chat")]);
    for (const [kind, owner] of plan) tell(builder, kind, owner, date);
    for (const slot of slots) {
      if (slot === "chat") {
        builder.exchange(chatter(rng, names, said), a.name, b.name);
        continue;
      }
      // The person with fewer stories so far tells the next one, most of the time.
      const fewer = a.dated.length + a.relatives.length <= b.dated.length + b.relatives.length ? a : b;
      const owner = rng.chance(0.7) ? fewer : fewer === a ? b : a;
      const kind = chooseKind(rng, owner, index);
      if (kind) tell(builder, kind, owner, date);
    }
    const closer = builder.turns[builder.turns.length - 1]?.speaker === a.name ? b : a;
    builder.exchange(closing(rng, closer.name), a.name, b.name);
    sessions.push({ index, date, turns: builder.turns });
  });

  drafts.push(...crossQuestions(rng, a, b, (line) => ids.get(line)));
  return { speakers: [a, b], sessions, drafts, ids };
}
