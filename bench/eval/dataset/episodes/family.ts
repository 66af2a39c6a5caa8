/**
 * Relatives: first introduced by relation and name, later talked about by name alone, so a
 * question naming the relation needs both turns.
 */
import { article, cap, type EpisodeKind, obj, owner, partner, poss, q, type Relative } from "../episode.ts";
import { OCCUPATIONS } from "../names.ts";
import { relativePast } from "../time.ts";
import { DESTINATIONS } from "../world.ts";

const RELATIONS = [
  ["sister", "she"],
  ["brother", "he"],
  ["cousin", undefined],
  ["aunt", "she"],
  ["uncle", "he"],
] as const;

export const relativeIntro: EpisodeKind = {
  id: "relative-intro",
  weight: 2,
  max: 2,
  make({ rng, owner: o, names }) {
    const known = new Set(o.relatives.map((r) => r.relation));
    const [relation, fixed] = rng.pick(RELATIONS.filter(([r]) => !known.has(r)));
    const person = names.person(fixed);
    const occupation = rng.pick(OCCUPATIONS);
    const years = rng.int(3, 12);
    const line = owner(
      `My ${relation} ${person.name} is staying with me this week. ${cap(person.pronoun)}'s ${article(occupation)}, so ${person.pronoun} has the funniest stories.`,
    );
    const react = partner(`Oh fun! Are you two close?`);
    const close = owner(
      rng.pick([
        `Very. We shared a bedroom for ${years} years growing up, so we had no choice!`,
        `We got a lot closer over the last ${years} years. ${cap(person.pronoun)} gives the best advice.`,
      ]),
    );
    const relative: Relative = { ...person, relation, occupation, line, news: false };
    o.relatives.push(relative);
    return {
      lines: [line, react, close],
      questions: [
        q("single-hop", `What does ${o.name}'s ${relation} do for a living?`, occupation, [line]),
        q("single-hop", `What is the name of ${o.name}'s ${relation}?`, person.name, [line]),
        q(
          "paraphrase",
          `What is the profession of the ${relation} who came to visit ${o.name}?`,
          occupation,
          [line],
        ),
      ],
    };
  },
};

const untold = (relatives: Relative[]) => relatives.find((r) => !r.news);

export const relativeNews: EpisodeKind = {
  id: "relative-news",
  weight: 2,
  max: 2,
  ready: (person) => untold(person.relatives) !== undefined,
  make({ rng, owner: o, spoken, names }) {
    const r = untold(o.relatives)!;
    r.news = true;
    const when = relativePast(rng, spoken);
    const what = rng.pick(["baby", "engaged", "abroad"] as const);
    if (what === "baby") {
      const baby = names.person();
      const weight = `${rng.int(6, 9)} pounds ${rng.int(1, 14)} ounces`;
      const announce = owner(
        `${r.name} had a baby ${when.phrase}! A little ${baby.pronoun === "she" ? "girl" : "boy"} called ${baby.name}.`,
      );
      const react = partner(`That's amazing, congratulations to the whole family! How is everyone?`);
      const detail = owner(`Tired but happy. ${baby.name} was ${weight} and has a full head of hair.`);
      return {
        lines: [announce, react, detail],
        questions: [
          q("single-hop", `What is the name of ${r.name}'s baby?`, baby.name, [announce]),
          q("single-hop", `How much did ${baby.name} weigh at birth?`, weight, [detail]),
          q("multi-hop", `What is the name of ${o.name}'s ${r.relation}'s baby?`, baby.name, [
            r.line,
            announce,
          ]),
          q("temporal", `When was ${r.name}'s baby born?`, when.answer, [announce]),
          q("paraphrase", `What did ${r.name} call ${poss(r.pronoun)} newborn?`, baby.name, [announce]),
        ],
      };
    }
    if (what === "engaged") {
      const fiance = names.person();
      const dest = rng.pick(DESTINATIONS);
      const announce = owner(
        `${r.name} got engaged ${when.phrase}! ${fiance.name} proposed on a trip to ${dest.city}.`,
      );
      const react = partner(`Oh that's so romantic! Do they have a date yet?`);
      const detail = owner(
        `Next ${rng.pick(["spring", "summer", "autumn"])}, probably. I already said I'd make the cake.`,
      );
      return {
        lines: [announce, react, detail],
        questions: [
          q("single-hop", `Who proposed to ${r.name}?`, fiance.name, [announce]),
          q("multi-hop", `Who is ${o.name}'s ${r.relation} engaged to?`, fiance.name, [r.line, announce]),
          q("temporal", `When did ${r.name} get engaged?`, when.answer, [announce]),
          q("paraphrase", `Who asked ${r.name} to marry ${obj(r.pronoun)}?`, fiance.name, [announce]),
          q("open-domain", `In which country did ${r.name}'s proposal happen?`, dest.country, [announce]),
        ],
      };
    }
    const dest = rng.pick(DESTINATIONS);
    const announce = owner(
      `${r.name} moved to ${dest.city} ${when.phrase} for work. I'm going to miss ${obj(r.pronoun)}.`,
    );
    const react = partner(`That's a big step! At least you have a good excuse to visit.`);
    return {
      lines: [announce, react],
      questions: [
        q("single-hop", `Where did ${r.name} move for work?`, dest.city, [announce]),
        q("multi-hop", `Which city did ${o.name}'s ${r.relation} move to?`, dest.city, [r.line, announce]),
        q("temporal", `When did ${r.name} move to ${dest.city}?`, when.answer, [announce]),
        q("open-domain", `Which country does ${r.name} live in now?`, dest.country, [announce]),
      ],
    };
  },
};
