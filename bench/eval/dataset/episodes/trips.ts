/** Trips abroad: where, how long, with whom, the highlight and the food. */
import { cap, type EpisodeKind, listItem, owner, partner, poss, q } from "../episode.ts";
import { relativePast } from "../time.ts";
import { DESTINATIONS } from "../world.ts";

const COMPANIONS = [
  ["my sister", "her sister"],
  ["two friends from college", "two college friends"],
  ["my partner", "her partner"],
  ["my dad", "her father"],
  ["nobody, it was a solo trip", "nobody (she went alone)"],
] as const;

const HIGHLIGHTS = [
  ["a cooking class with a local chef", "taking a cooking class"],
  ["a sunrise hike above the city", "hiking at sunrise"],
  ["getting lost in the old town for a whole afternoon", "wandering the old town"],
  ["a boat tour along the coast", "a boat tour"],
  ["the night markets", "the night markets"],
  ["a tiny museum of folk art", "a folk art museum"],
] as const;

export const trip: EpisodeKind = {
  id: "trip",
  weight: 4,
  max: 4,
  make({ rng, owner: o, spoken }) {
    const visited = new Set((o.lists.get("trips") ?? []).map((l) => l.item));
    const dest = rng.pick(DESTINATIONS.filter((d) => !visited.has(d.city)));
    const days = rng.int(3, 14);
    const when = relativePast(rng, spoken, "period");
    const [withWhom, withAnswer] = rng.pick(COMPANIONS);
    const [highlight, highlightAnswer] = rng.pick(HIGHLIGHTS);
    const food = rng.pick([
      "the street food was",
      "the seafood was",
      "the pastries were",
      "the coffee was",
      "the dumplings were",
    ]);
    const withText = withAnswer.replace("her", poss(o.pronoun)).replace("she", o.pronoun);
    const announce = owner(
      rng.pick([
        `I spent ${days} days in ${dest.city} ${when.phrase}!`,
        `${cap(when.phrase)} I flew to ${dest.city} for ${days} days.`,
        `I just got back from ${dest.city}, we were there for ${days} days ${when.phrase}.`,
      ]),
    );
    const react = partner(
      rng.pick([
        `${dest.city}! I've always wanted to go. Who did you go with?`,
        `Oh wow, ${dest.city} sounds amazing. Were you travelling alone?`,
      ]),
    );
    const company = owner(
      `I went to ${dest.city} with ${withWhom}. ${rng.pick(["It was perfect.", "We laughed the whole time."])}`,
    );
    const ask = partner(rng.pick(["What was the best part?", "What did you love most?", "Any highlights?"]));
    const best = owner(`Honestly, ${highlight} was the highlight of ${dest.city}. And ${food} unreal.`);
    const echo = partner(
      rng.pick([
        `A friend of mine keeps talking about ${dest.country}, now I really have to go.`,
        `I was in ${dest.country} years ago and still dream about it.`,
      ]),
    );
    o.dated.push({ label: `travelling to ${dest.city}`, date: when.date, line: announce });
    listItem(o, "trips", { item: dest.city, line: announce });
    const questions = [
      q("single-hop", `How many days did ${o.name} spend in ${dest.city}?`, `${days} days`, [announce]),
      q("single-hop", `Who did ${o.name} go to ${dest.city} with?`, withText, [company]),
      q("single-hop", `What was the best part of ${o.name}'s trip to ${dest.city}?`, highlightAnswer, [best]),
      q("temporal", `When did ${o.name} go to ${dest.city}?`, when.answer, [announce]),
      q(
        "paraphrase",
        `Which travel companions joined ${o.name} on ${poss(o.pronoun)} ${dest.city} holiday?`,
        withText,
        [company],
      ),
      q("paraphrase", `What did ${o.name} enjoy most while vacationing in ${dest.city}?`, highlightAnswer, [
        best,
      ]),
      q(
        "open-domain",
        `Which continent did ${o.name} visit when ${o.pronoun} travelled for ${days} days?`,
        dest.continent,
        [announce],
      ),
      q("open-domain", `What currency would ${o.name} have used in ${dest.city}?`, dest.currency, [announce]),
    ];
    if (dest.language) {
      questions.push(
        q(
          "open-domain",
          `What language do most people speak where ${o.name} went for ${days} days?`,
          dest.language,
          [announce],
        ),
      );
    }
    return { lines: [announce, react, company, ask, best, echo], questions };
  },
};
