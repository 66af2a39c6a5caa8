/**
 * Questions that span episodes: a person's list of trips or pets, where they lived when something
 * happened, which of two events came first, and what the two friends have between them.
 */
import { type Dated, type Line, type Person, type QuestionDraft, q } from "./episode.ts";
import type { Rng } from "./prng.ts";
import { formatDay, formatMonth } from "./time.ts";

const LIST_QUESTIONS: Record<string, (name: string) => string> = {
  trips: (n) => `Which cities has ${n} travelled to?`,
  pets: (n) => `What pets does ${n} have?`,
  purchases: (n) => `What bigger purchases has ${n} made?`,
  hobbies: (n) => `Which hobbies has ${n} taken up?`,
  concerts: (n) => `Which bands has ${n} seen live?`,
  books: (n) => `Which books has ${n} been reading?`,
  dishes: (n) => `Which dishes has ${n} cooked from scratch?`,
  jobs: (n) => `Which jobs has ${n} had?`,
};

const join = (items: string[]) => items.join(", ");

function listQuestions(person: Person): QuestionDraft[] {
  const out: QuestionDraft[] = [];
  for (const [key, ask] of Object.entries(LIST_QUESTIONS)) {
    const items = person.lists.get(key) ?? [];
    if (items.length < 2) continue;
    out.push(
      q(
        "multi-hop",
        ask(person.name),
        join(items.map((i) => i.item)),
        items.map((i) => i.line),
      ),
    );
  }
  return out;
}

/** Where a person lived at each dated event, for people who moved (else it is one turn). */
function homeQuestions(rng: Rng, person: Person): QuestionDraft[] {
  if (person.homes.length < 2) return [];
  const out: QuestionDraft[] = [];
  for (const event of rng.shuffle(person.dated).slice(0, 4)) {
    if (event.label.startsWith("moving to")) continue;
    const home = [...person.homes].reverse().find((h) => h.date.getTime() <= event.date.getTime());
    if (!home) continue;
    out.push(
      q(
        "multi-hop",
        `Which city was ${person.name} living in at the time of ${event.label}?`,
        home.city.city,
        [home.line, event.line],
      ),
    );
  }
  return out;
}

/** "Which came first": pairs of a person's dated events told in different sessions. */
function orderQuestions(rng: Rng, person: Person, ids: (line: Line) => string | undefined): QuestionDraft[] {
  const events = person.dated.filter((d) => ids(d.line) !== undefined);
  const session = (d: Dated) => ids(d.line)!.split(":")[0];
  const out: QuestionDraft[] = [];
  const seen = new Set<string>();
  for (let tries = 0; tries < 60 && out.length < 8; tries++) {
    const [x, y] = rng.shuffle(events).slice(0, 2);
    if (!x || !y || session(x) === session(y) || x.date.getTime() === y.date.getTime()) continue;
    const key = [x.label, y.label].sort().join("|");
    if (seen.has(key)) continue;
    seen.add(key);
    const earlier = x.date < y.date ? x : y;
    out.push(
      q(
        "temporal",
        `Which came first for ${person.name}: ${x.label} or ${y.label}?`,
        `${earlier.label} (around ${formatDay(earlier.date)})`,
        [x.line, y.line],
      ),
    );
  }
  return out;
}

/**
 * "What did X do in May 2022?": months in which the person has exactly one dated event, away from
 * the month's edges (some dates are approximate: "last week"). Only the turn's date answers it.
 */
function monthQuestions(person: Person): QuestionDraft[] {
  const byMonth = new Map<string, Dated[]>();
  for (const event of person.dated) {
    const month = formatMonth(event.date);
    byMonth.set(month, [...(byMonth.get(month) ?? []), event]);
  }
  const out: QuestionDraft[] = [];
  for (const [month, events] of byMonth) {
    const day = events[0]!.date.getUTCDate();
    if (events.length !== 1 || day < 4 || day > 25) continue;
    out.push(q("temporal", `What did ${person.name} do in ${month}?`, events[0]!.label, [events[0]!.line]));
  }
  return out.slice(0, 4);
}

function together(a: Person, b: Person): QuestionDraft[] {
  const out: QuestionDraft[] = [];
  const pets = [...(a.lists.get("pets") ?? []), ...(b.lists.get("pets") ?? [])];
  if ((a.lists.get("pets")?.length ?? 0) > 0 && (b.lists.get("pets")?.length ?? 0) > 0) {
    out.push(
      q(
        "multi-hop",
        `What pets do ${a.name} and ${b.name} have between them?`,
        join(pets.map((p) => p.item)),
        pets.map((p) => p.line),
      ),
    );
  }
  const tripsA = a.lists.get("trips") ?? [];
  const tripsB = b.lists.get("trips") ?? [];
  if (tripsA.length > 0 && tripsB.length > 0 && tripsA.length !== tripsB.length) {
    const more = tripsA.length > tripsB.length ? a : b;
    out.push(
      q(
        "multi-hop",
        `Who has travelled to more cities, ${a.name} or ${b.name}?`,
        more.name,
        [...tripsA, ...tripsB].map((t) => t.line),
      ),
    );
  }
  const jobA = a.jobs[a.jobs.length - 1];
  const jobB = b.jobs[b.jobs.length - 1];
  if (jobA && jobB) {
    out.push(
      q(
        "multi-hop",
        `Where do ${a.name} and ${b.name} each work by the end of their conversations?`,
        `${a.name}: ${jobA.company}; ${b.name}: ${jobB.company}`,
        [jobA.line, jobB.line],
      ),
    );
  }
  return out;
}

export function crossQuestions(
  rng: Rng,
  a: Person,
  b: Person,
  ids: (line: Line) => string | undefined,
): QuestionDraft[] {
  return [
    ...listQuestions(a),
    ...listQuestions(b),
    ...homeQuestions(rng, a),
    ...homeQuestions(rng, b),
    ...orderQuestions(rng, a, ids),
    ...orderQuestions(rng, b, ids),
    ...monthQuestions(a),
    ...monthQuestions(b),
    ...together(a, b),
  ];
}
