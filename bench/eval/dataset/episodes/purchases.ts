/** Buying something bigger: a car, a camera, a laptop, a guitar, a motorbike. */
import { type EpisodeKind, listItem, owner, partner, poss, q } from "../episode.ts";
import { COLOURS } from "../names.ts";
import { relativePast } from "../time.ts";
import { PRODUCTS } from "../world.ts";

export const purchase: EpisodeKind = {
  id: "purchase",
  weight: 3,
  max: 3,
  make({ rng, owner: o, spoken }) {
    const owned = new Set((o.lists.get("purchases") ?? []).map((l) => l.item));
    const product = rng.pick(PRODUCTS.filter((p) => !owned.has(p.item)));
    const maker = rng.pick(product.makers);
    const described = rng.pick(product.styles).replace("{maker}", maker.name);
    const [low, high] = product.priceRange;
    const price = Math.round(rng.int(low, high) / 10) * 10;
    const colour = rng.pick(COLOURS);
    const when = relativePast(rng, spoken);
    const seller = rng.pick([
      "an online marketplace",
      "a shop downtown",
      "a coworker who was upgrading",
      "an estate sale",
    ]);
    const announce = owner(
      rng.pick([
        `I treated myself ${when.phrase} and bought ${described}.`,
        `Confession: ${when.phrase} I finally bought ${described}.`,
      ]),
    );
    const react = partner(
      rng.pick([
        "Ooh, nice! Was it expensive?",
        "Fancy! How much did that set you back?",
        "Nice! Did you get a good deal?",
      ]),
    );
    const detail = owner(`The ${product.item} was $${price}, from ${seller}. It's ${colour}, which I love.`);
    const echo = partner(
      rng.pick([
        `I've been eyeing a new ${product.item} myself, but prices are wild right now.`,
        `My brother-in-law sells ${product.item}s, I should have told you!`,
      ]),
    );
    o.dated.push({ label: `buying the ${product.item}`, date: when.date, line: announce });
    listItem(o, "purchases", { item: product.item, line: announce });
    const synonym = rng.pick(product.synonyms);
    return {
      lines: [announce, react, detail, echo],
      questions: [
        q("single-hop", `How much did ${o.name} pay for ${poss(o.pronoun)} ${product.item}?`, `$${price}`, [
          detail,
        ]),
        q("single-hop", `What colour is ${o.name}'s new ${product.item}?`, colour, [detail]),
        q("single-hop", `Which brand of ${product.item} did ${o.name} buy?`, maker.name, [announce]),
        q("temporal", `When did ${o.name} buy ${poss(o.pronoun)} ${product.item}?`, when.answer, [announce]),
        q("paraphrase", `What was the cost of ${o.name}'s latest ${synonym}?`, `$${price}`, [detail]),
        q("paraphrase", `Where did ${o.name} pick up ${poss(o.pronoun)} ${synonym} from?`, seller, [detail]),
        q(
          "open-domain",
          `In which country is the company that made ${o.name}'s ${product.item} based?`,
          maker.country,
          [announce],
        ),
      ],
    };
  },
};
