/** Where a person lives: said early on, and a move later. */
import { type EpisodeKind, owner, partner, q } from "../episode.ts";
import { relativePast } from "../time.ts";
import { HOME_CITIES } from "../world.ts";

const FEATURES = [
  "a great bakery",
  "the river trail",
  "a farmers' market",
  "a little cinema",
  "the botanical garden",
];

export const homeIntro: EpisodeKind = {
  id: "home-intro",
  weight: 0,
  max: 1,
  make({ rng, owner: o, spoken }) {
    const city = rng.pick(HOME_CITIES);
    const neighbourhood = rng.pick(city.neighbourhoods);
    const feature = rng.pick(FEATURES);
    const line = owner(
      `I'm still loving my apartment in ${neighbourhood}, ${city.city}. There's ${feature} right around the corner.`,
    );
    const react = partner(`That sounds lovely. I need to come visit ${city.city} one of these days.`);
    o.homes.push({ city, neighbourhood, line, date: new Date(spoken.getTime() - 365 * 86_400_000) });
    return {
      lines: [line, react],
      questions: [
        q("single-hop", `Which city does ${o.name} live in at the start of the conversations?`, city.city, [
          line,
        ]),
        q("single-hop", `What is near ${o.name}'s apartment in ${neighbourhood}?`, feature, [line]),
        q("open-domain", `Which state, province or nation is ${o.name}'s first home city in?`, city.region, [
          line,
        ]),
      ],
    };
  },
};

export const move: EpisodeKind = {
  id: "move",
  weight: 1.5,
  max: 1,
  ready: (person) => person.homes.length > 0,
  make({ rng, owner: o, spoken }) {
    const from = o.homes[o.homes.length - 1]!;
    const city = rng.pick(HOME_CITIES.filter((c) => c.city !== from.city.city));
    const neighbourhood = rng.pick(city.neighbourhoods);
    const when = relativePast(rng, spoken, rng.chance(0.5) ? "recent" : "period");
    const rent = rng.int(9, 26) * 100;
    const rooms = rng.pick(["one-bedroom", "two-bedroom", "three-bedroom"]);
    const [said, reason] = rng.pick([
      ["I wanted to be closer to my family", "to be closer to family"],
      ["my rent back in the old place kept going up", "the rent at the old place kept rising"],
      ["I needed a fresh start", "for a fresh start"],
      ["the new job is easier to reach from there", "to be nearer to work"],
    ] as const);
    const announce = owner(
      rng.pick([
        `Big change: I moved from ${from.city.city} to ${city.city} ${when.phrase}!`,
        `I packed up everything and left ${from.city.city}. Since ${when.phrase} I live in ${city.city}.`,
      ]),
    );
    const react = partner(`Wow, that's huge! What made you decide to go?`);
    const why = owner(`Mostly ${said}, so moving made sense.`);
    const ask = partner(`And what's the new place like?`);
    const detail = owner(
      `It's a ${rooms} in ${neighbourhood} with a balcony, and the rent is $${rent} a month.`,
    );
    o.homes.push({ city, neighbourhood, line: announce, date: when.date });
    o.dated.push({ label: `moving to ${city.city}`, date: when.date, line: announce });
    return {
      lines: [announce, react, why, ask, detail],
      questions: [
        q("single-hop", `Why did ${o.name} move to ${city.city}?`, reason, [why]),
        q("single-hop", `How much rent does ${o.name} pay in ${neighbourhood}?`, `$${rent} a month`, [
          detail,
        ]),
        q("temporal", `When did ${o.name} move to ${city.city}?`, when.answer, [announce]),
        q(
          "multi-hop",
          `What kind of apartment did ${o.name} find after leaving ${from.city.city}?`,
          `a ${rooms} in ${neighbourhood}`,
          [announce, detail],
        ),
        q(
          "paraphrase",
          `What does ${o.name}'s monthly housing cost come to after the relocation?`,
          `$${rent}`,
          [detail],
        ),
        q("paraphrase", `What motivated ${o.name} to relocate?`, reason, [why]),
        q("open-domain", `Which state, province or nation did ${o.name} relocate to?`, city.region, [
          announce,
        ]),
      ],
    };
  },
};
