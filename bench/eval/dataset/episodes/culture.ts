/** Cooking, concerts, books and evening courses. */
import { type EpisodeKind, listItem, owner, partner, poss, q } from "../episode.ts";
import { BOOK_GENRES, GENRES, SUBJECTS, VENUES } from "../names.ts";
import { relativePast } from "../time.ts";
import { DISHES, LANGUAGE_COURSES } from "../world.ts";

export const cooking: EpisodeKind = {
  id: "cooking",
  weight: 2,
  max: 2,
  make({ rng, owner: o, spoken }) {
    const cooked = new Set((o.lists.get("dishes") ?? []).map((l) => l.item));
    const dish = rng.pick(DISHES.filter((d) => !cooked.has(d.name)));
    const when = relativePast(rng, spoken);
    const source = rng.pick([
      "my grandmother's recipe",
      "a recipe from an old neighbour",
      "a recipe my dad wrote down",
    ]);
    const guests = rng.int(3, 12);
    const announce = owner(`I made ${dish.name} from scratch ${when.phrase}, using ${source}.`);
    const react = partner(`Yum! How did it turn out?`);
    const detail = owner(`Really well! I fed ${guests} people and there were no leftovers at all.`);
    const echo = partner(`Save me some next time. I burned pasta last week, so I'm impressed.`);
    o.dated.push({ label: `cooking ${dish.name}`, date: when.date, line: announce });
    listItem(o, "dishes", { item: dish.name, line: announce });
    return {
      lines: [announce, react, detail, echo],
      questions: [
        q(
          "single-hop",
          `Whose recipe did ${o.name} use for ${dish.name}?`,
          source.replace("my", poss(o.pronoun)),
          [announce],
        ),
        q("temporal", `When did ${o.name} make ${dish.name}?`, when.answer, [announce]),
        q("multi-hop", `How many people ate the ${dish.name} ${o.name} cooked?`, String(guests), [
          announce,
          detail,
        ]),
        q(
          "paraphrase",
          `Which meal did ${o.name} prepare by hand following an old family formula?`,
          dish.name,
          [announce],
        ),
        q("open-domain", `Which country's cuisine does the dish ${o.name} cooked come from?`, dish.cuisine, [
          announce,
        ]),
      ],
    };
  },
};

export const concert: EpisodeKind = {
  id: "concert",
  weight: 2,
  max: 2,
  make({ rng, owner: o, spoken, names }) {
    const band = names.band();
    const venue = rng.pick(VENUES);
    const genre = rng.pick(GENRES);
    const when = relativePast(rng, spoken);
    const announce = owner(`I saw ${band} live ${when.phrase} at ${venue}. Best night out in ages.`);
    const react = partner(`I don't think I know them. What kind of music do they play?`);
    const detail = owner(
      `Mostly ${genre}. The encore was a ${rng.int(8, 20)}-minute jam and everyone was dancing.`,
    );
    o.dated.push({ label: `seeing ${band} live`, date: when.date, line: announce });
    listItem(o, "concerts", { item: band, line: announce });
    return {
      lines: [announce, react, detail],
      questions: [
        q("single-hop", `Where did ${o.name} see ${band}?`, venue, [announce]),
        q("temporal", `When did ${o.name} see ${band} live?`, when.answer, [announce]),
        q("multi-hop", `What kind of music does the band ${o.name} saw at ${venue} play?`, genre, [
          announce,
          detail,
        ]),
        q("paraphrase", `At which location did ${o.name} catch ${band} performing?`, venue, [announce]),
      ],
    };
  },
};

export const book: EpisodeKind = {
  id: "book",
  weight: 1.5,
  max: 2,
  make({ rng, owner: o, names }) {
    const [title, author] = names.book();
    const genre = rng.pick(BOOK_GENRES);
    const pages = rng.int(18, 60) * 10;
    const line = owner(`I'm reading "${title}" by ${author}. It's a ${genre} and I can't put it down.`);
    const react = partner(`Is it long? I never finish big books.`);
    const detail = owner(`${pages} pages, but the chapters are short. I'll lend it to you when I'm done.`);
    listItem(o, "books", { item: title, line });
    return {
      lines: [line, react, detail],
      questions: [
        q("single-hop", `Who wrote the book "${title}" that ${o.name} is reading?`, author, [line]),
        q("single-hop", `What kind of book is "${title}"?`, genre, [line]),
        q("multi-hop", `How many pages does the ${genre} ${o.name} was reading have?`, String(pages), [
          line,
          detail,
        ]),
        q("paraphrase", `Which novel has ${o.name} found impossible to stop?`, title, [line]),
      ],
    };
  },
};

export const course: EpisodeKind = {
  id: "course",
  weight: 1.5,
  max: 1,
  make({ rng, owner: o, spoken }) {
    const when = relativePast(rng, spoken, "period");
    const weeks = rng.int(6, 16);
    const language = rng.chance(0.5) ? rng.pick(LANGUAGE_COURSES) : undefined;
    const subject = language?.language ?? rng.pick(SUBJECTS);
    const announce = owner(
      `I started an evening course in ${subject} ${when.phrase}. It runs for ${weeks} weeks.`,
    );
    const react = partner(`Look at you! Why ${subject}?`);
    const why = owner(
      language
        ? `I'd love to travel and actually talk to people, and my company pays half the fee.`
        : `I've been curious about it forever, and my company pays half the fee.`,
    );
    o.dated.push({ label: `starting a course in ${subject}`, date: when.date, line: announce });
    const questions = [
      q("single-hop", `How many weeks does ${o.name}'s ${subject} course last?`, `${weeks} weeks`, [
        announce,
      ]),
      q("temporal", `When did ${o.name} start ${poss(o.pronoun)} ${subject} course?`, when.answer, [
        announce,
      ]),
      q(
        "paraphrase",
        `Who covers part of the tuition for ${o.name}'s night classes?`,
        `${poss(o.pronoun)} employer`,
        [why],
      ),
    ];
    if (language) {
      questions.push(
        q(
          "open-domain",
          `Name a country where the language ${o.name} is studying in the evenings is official.`,
          language.countries,
          [announce],
        ),
      );
    }
    return { lines: [announce, react, why], questions };
  },
};
