/** Adopting a pet, and later news about it (a vet visit, a new trick). */
import { cap, type EpisodeKind, listItem, obj, owner, type Pet, partner, poss, q } from "../episode.ts";
import { STREETS } from "../names.ts";
import { relativePast } from "../time.ts";
import { CAT_BREEDS, DOG_BREEDS, SMALL_PETS } from "../world.ts";

/** Other words for the animal, for paraphrased questions. */
const CALLED: Record<string, string[]> = {
  dog: ["canine companion", "pup", "four-legged friend"],
  cat: ["feline", "kitty"],
};
const critter = (species: string) => CALLED[species] ?? ["little critter", "animal companion"];

export const adoptPet: EpisodeKind = {
  id: "pet-adopt",
  weight: 3,
  max: 2,
  make({ rng, owner: o, spoken, names }) {
    const kind = rng.pick(["dog", "dog", "cat", "cat", "small"] as const);
    const breed = kind === "dog" ? rng.pick(DOG_BREEDS) : kind === "cat" ? rng.pick(CAT_BREEDS) : undefined;
    const small = kind === "small" ? rng.pick(SMALL_PETS) : undefined;
    const species = small?.species ?? kind;
    const name = names.pet();
    const it = rng.pick(["she", "he"] as const);
    const age = rng.int(1, small ? 3 : 7);
    const when = relativePast(rng, spoken);
    const source = rng.pick([
      `the animal shelter on ${rng.pick(STREETS)}`,
      "a rescue group that fosters animals",
      "a breeder a couple of hours out of town",
      "a neighbour who was moving abroad",
    ]);
    const announce = owner(
      rng.pick([
        `Big news: ${when.phrase} I adopted a ${species}!`,
        `Guess what? I brought home a ${species} ${when.phrase}.`,
        `So ${when.phrase} I finally did it and adopted a ${species}.`,
      ]),
    );
    const react = partner(
      rng.pick([
        `A ${species}! That's wonderful. What's ${poss(it)} name?`,
        `No way, congratulations! Tell me everything, what's the ${species} called?`,
        `Oh I'm so jealous. What did you name the ${species}?`,
      ]),
    );
    const detail = owner(
      breed
        ? `${name}! ${cap(it)}'s a ${age}-year-old ${breed.name}, the sweetest ${species} I've ever met.`
        : `${name}! ${cap(it)}'s ${age} and already acts like the ${species} owns the place.`,
    );
    const echo = partner(
      rng.pick([
        `My aunt had a ${breed?.name ?? species} when I was little, they're such good company.`,
        `${name} is a perfect name. My building doesn't even allow a ${species}, sadly.`,
        `I can't wait to meet ${obj(it)}. Our old ${species} lived to be fifteen.`,
      ]),
    );
    const origin = owner(
      `We found the little ${species} at ${source}. ${cap(it)} was so shy the first night.`,
    );
    const pet: Pet = { name, species, label: breed?.name ?? species, pronoun: it, detail, news: false };
    o.pets.push(pet);
    o.dated.push({ label: `adopting ${name}`, date: when.date, line: announce });
    listItem(o, "pets", { item: `${name} (${species})`, line: detail });
    const questions = [
      q("single-hop", `What is the name of ${o.name}'s ${species}?`, name, [detail]),
      q("single-hop", `Where did ${o.name} get ${name}?`, `at ${source}`, [origin]),
      q("temporal", `When did ${o.name} adopt a ${species}?`, when.answer, [announce]),
      q(
        "paraphrase",
        `What did ${o.name} decide to call ${poss(o.pronoun)} new ${rng.pick(critter(species))}?`,
        name,
        [detail],
      ),
      q(
        "paraphrase",
        `Which place did the ${rng.pick(critter(species))} that lives with ${o.name} come from?`,
        source,
        [origin],
      ),
    ];
    if (breed) {
      questions.push(q("single-hop", `What breed is ${name}?`, breed.name, [detail]));
      questions.push(
        q("open-domain", `Which country does the breed of ${o.name}'s ${species} come from?`, breed.origin, [
          detail,
        ]),
      );
    } else if (small) {
      questions.push(q("single-hop", `What kind of animal is ${name}?`, `a ${species}`, [detail]));
      questions.push(
        q("open-domain", `What class of animal is ${o.name}'s pet ${name}?`, small.animalClass, [detail]),
      );
    }
    return { lines: [announce, react, detail, echo, origin], questions };
  },
};

const SWALLOWED = ["sock", "rubber duck", "hair tie", "bottle cap", "wine cork", "button"];
const TRICKS = [
  ["ring a bell by the door to go out", "ringing a bell by the door"],
  ["give a high-five", "giving a high-five"],
  ["fetch the newspaper", "fetching the newspaper"],
  ["spin in a circle on command", "spinning in a circle on command"],
  ["come when I whistle", "coming to a whistle"],
] as const;

const untoldPet = (pets: Pet[]) => pets.find((pet) => !pet.news);

export const petNews: EpisodeKind = {
  id: "pet-news",
  weight: 2,
  max: 2,
  ready: (person) => untoldPet(person.pets) !== undefined,
  make({ rng, owner: o, spoken, names }) {
    const pet = untoldPet(o.pets)!;
    pet.news = true;
    const it = pet.pronoun;
    if (rng.chance(0.5)) {
      const thing = rng.pick(SWALLOWED);
      const when = relativePast(rng, spoken);
      const vet = `Dr. ${names.surname()}`;
      const announce = owner(
        `Poor ${pet.name} had to see the vet ${when.phrase}. ${cap(it)} swallowed a ${thing}!`,
      );
      const react = partner(`Oh no! Is ${it} okay? That must have been scary.`);
      const detail = owner(
        `The vet, ${vet}, got it out without surgery. ${cap(it)}'s back to normal, just sulking a bit.`,
      );
      const comfort = partner(`Thank goodness. My cousin's ${pet.species} once ate a whole birthday candle.`);
      o.dated.push({ label: `taking ${pet.name} to the vet`, date: when.date, line: announce });
      return {
        lines: [announce, react, detail, comfort],
        questions: [
          q("single-hop", `What did ${pet.name} swallow?`, `a ${thing}`, [announce]),
          q("single-hop", `Which vet treated ${pet.name}?`, vet, [detail]),
          q("multi-hop", `What did ${o.name}'s ${pet.label} swallow?`, `a ${thing}`, [pet.detail, announce]),
          q("temporal", `When did ${pet.name} go to the vet?`, when.answer, [announce]),
          q(
            "paraphrase",
            `Which object did ${pet.name} gulp down that needed a trip to the animal doctor?`,
            `a ${thing}`,
            [announce],
          ),
        ],
      };
    }
    const [trick, doing] = rng.pick(TRICKS);
    const weeks = rng.int(2, 6);
    const announce = owner(
      `You won't believe it, ${pet.name} learned to ${trick}. It took ${weeks} weeks of practice.`,
    );
    const react = partner(`That's adorable! You have to send me a video.`);
    const brag = owner(`I will! ${cap(it)} gets so proud of ${obj(it)}self afterwards, it's hilarious.`);
    return {
      lines: [announce, react, brag],
      questions: [
        q("single-hop", `What trick did ${pet.name} learn?`, doing, [announce]),
        q("single-hop", `How long did it take ${pet.name} to learn ${poss(it)} trick?`, `${weeks} weeks`, [
          announce,
        ]),
        q("multi-hop", `What trick did ${o.name}'s ${pet.label} learn?`, doing, [pet.detail, announce]),
        q("paraphrase", `What new skill has ${pet.name} picked up?`, doing, [announce]),
      ],
    };
  },
};
