/**
 * Small talk: openings, goodbyes and chat between the episodes. Much of it mentions the same kinds
 * of things the episodes do (a city, a breed, a maker, an instrument) about other people, so a
 * question's words also match turns that do not answer it.
 */
import type { Line } from "./episode.ts";
import type { NameBook } from "./name-book.ts";
import { BOOK_GENRES, GENRES } from "./names.ts";
import type { Rng } from "./prng.ts";
import { DESTINATIONS, DISHES, DOG_BREEDS, INSTRUMENTS, PRODUCTS, SPORTS } from "./world.ts";

/** Lines of a two-person exchange: `first` speaks first, then they alternate. */
export type Exchange = string[];

const first = (text: string): Line => ({ by: "owner", text });
const second = (text: string): Line => ({ by: "partner", text });

/** Alternating lines, the first spoken by whoever the builder makes the owner. */
export const alternate = (texts: Exchange): Line[] =>
  texts.map((t, i) => (i % 2 === 0 ? first(t) : second(t)));

export function opening(rng: Rng, listener: string, opener: string): Exchange {
  return rng.pick<Exchange>([
    [`Hey ${listener}! How have you been?`, `Hi ${opener}! Pretty good, busy as usual. You?`],
    [
      `Hi ${listener}, it's been a while! What's new?`,
      `Hey ${opener}! Not much, honestly. So good to hear from you.`,
    ],
    [
      `Hey! Sorry it's been a few weeks, life got busy. How are you, ${listener}?`,
      `No worries at all, ${opener}! I'm doing well.`,
    ],
    [
      `Good evening, ${listener}! Do you have a minute to catch up?`,
      `Always! I was just thinking about you, ${opener}.`,
    ],
  ]);
}

export function closing(rng: Rng, other: string): Exchange {
  return [
    rng.pick([
      "Anyway, I should get going. Talk soon!",
      "I have to run, dinner's almost ready. Bye for now!",
      "Okay, my phone is about to die. Catch up next week?",
      "I'd better get some sleep. This was nice!",
      "Oops, I'm late for something. Let's talk again soon!",
    ]),
    rng.pick([
      `Bye ${other}, take care!`,
      "Talk soon! Have a good one.",
      "Sounds good, speak soon!",
      `Same here, ${other}. Good night!`,
      "Go, go! Talk later.",
    ]),
  ];
}

/** A bridge line before an episode whose owner just spoke: the other asks for news. */
export function prompt(rng: Rng): string {
  return rng.pick([
    "What about you, anything new?",
    "So what's new with you?",
    "Enough about me. How are things on your end?",
    "Anyway, how has your week been?",
    "Your turn! What's going on with you?",
    "And you? Anything exciting lately?",
    "How about you, what have you been up to?",
  ]);
}

type Topic = (rng: Rng, names: NameBook) => Exchange;

const someone = (names: NameBook, rng: Rng) =>
  names.passerby() ?? rng.pick(["a friend of mine", "someone at the gym", "my old roommate"]);

const TOPICS: readonly Topic[] = [
  (rng) =>
    rng.pick([
      ["It's been raining nonstop here all week.", "Same here. I've forgotten what the sun looks like."],
      ["It's so hot today, I'm melting.", "Stay inside with a fan and a cold drink!"],
      ["We had the first snow of the year this morning.", "Already? I'm not ready for winter at all."],
    ]),
  () => [
    "Any plans for the weekend?",
    "Not really, maybe a long walk and a movie. You?",
    "Same, something lazy.",
  ],
  () => [
    "Watching anything good lately?",
    "A detective series set on an island, it's so addictive.",
    "Ooh, send me the name!",
  ],
  () => ["Work has been draining me lately.", "Hang in there. Maybe take a day off soon?"],
  () => ["Thanks for listening last time, it really helped.", "Anytime, that's what friends are for."],
  () => ["I'm on my third coffee today.", "Only the third? Rookie numbers."],
  () => ["My tomatoes finally turned red!", "Homegrown tomatoes are the best thing about summer."],
  () => ["I think I'm catching a cold.", "Drink some ginger tea and get some sleep!"],
  (rng, names) => {
    const city = rng.pick(DESTINATIONS).city;
    return [
      `My coworker ${someone(names, rng)} just came back from ${city}, the photos look unreal.`,
      `I'd love to go to ${city} someday.`,
    ];
  },
  (rng) => {
    const breed = rng.pick(DOG_BREEDS).name;
    return [
      `My neighbour's ${breed} barks at every bike that passes.`,
      "Ha! At least it's a good guard dog.",
    ];
  },
  (rng) => {
    const product = rng.pick(PRODUCTS);
    const maker = rng.pick(product.makers).name;
    return [
      `I saw a ${maker} ${product.item} on sale for $${rng.int(2, 40) * 50}, but I resisted.`,
      "Strong willpower! I would have caved.",
    ];
  },
  (rng, names) => [
    `My friend ${someone(names, rng)} just started playing the ${rng.pick(INSTRUMENTS).name} too.`,
    "Everyone's picking up music lately!",
  ],
  (rng) => {
    const dish = rng.pick(DISHES).name;
    return [
      `I tried a new ${dish} place downtown, it was just okay.`,
      `The best ${dish} is homemade, trust me.`,
    ];
  },
  (rng) => {
    const sport = rng.pick(SPORTS).name;
    return [
      `I watched a ${sport} match on TV last night, so intense.`,
      `I've never understood the rules of ${sport}.`,
    ];
  },
  (rng) => [
    `My ${rng.pick(["sister", "brother", "cousin", "aunt"])} keeps asking when I'll visit ${rng.pick(DESTINATIONS).city}.`,
    "You should go, family time is precious.",
  ],
  (rng) => [
    `I started a ${rng.pick(BOOK_GENRES)} last night but it's slow.`,
    "Give it fifty pages before you quit.",
  ],
  (rng) => [`There's a ${rng.pick(GENRES)} festival in the park next month.`, "We should go together!"],
  (rng) => [
    `I finally cleaned out my closet and donated ${rng.int(3, 9)} bags of clothes.`,
    "That feels so good, I need to do the same.",
  ],
  () => [
    "Someone from my building got a new job at the hospital.",
    "Good for them! Everybody seems to be switching jobs.",
  ],
];

/** Everyday chat with nothing in it to retrieve. */
const EVERYDAY: readonly Exchange[] = [
  ["I finally fixed the squeaky door that's been driving me mad.", "Victory! Small wins count."],
  ["My phone screen cracked again this morning.", "Oh no. Time for a sturdier case!"],
  [
    "I've been trying to go to bed before eleven.",
    "How's that going?",
    "Badly. There's always one more episode.",
  ],
  [
    "Did you see the sunset yesterday? The whole sky was pink.",
    "I missed it! I was stuck indoors all evening.",
  ],
  ["I'm trying to drink more water this month.", "Same! I bought one of those giant bottles."],
  ["The neighbours are renovating and the drilling starts at seven.", "That's cruel. Earplugs, maybe?"],
  ["I baked banana bread because the bananas were going brown.", "The best reason to bake anything."],
  ["I've started journaling in the mornings.", "Does it help?", "More than I expected, honestly."],
  ["My laundry pile has become a mountain.", "Mine too. It's a lifestyle at this point."],
  ["I got lost on the way to a dentist appointment today.", "How? You've been going there for years!"],
  ["I need a new hobby for the evenings.", "Puzzles! I'm hooked on a thousand-piece one."],
  ["It's my turn to host game night this week.", "Make your famous dip and everyone will be happy."],
  ["I spent the whole Sunday reorganising my kitchen.", "That sounds oddly satisfying."],
  ["Traffic this morning was unbelievable.", "I heard there was an accident on the bridge."],
  ["I've been listening to old albums from high school.", "Nostalgia is the best playlist."],
  ["My plants are finally recovering after I forgot to water them.", "They're tougher than they look!"],
  ["I tried meditating for ten minutes and fell asleep.", "Honestly, that still counts as rest."],
  [
    "Our team won the pub quiz on Thursday!",
    "No way! What was the winning question?",
    "Something about volcanoes.",
  ],
];

/** Small talk whose first line `said` does not hold yet (a session does not repeat itself). */
export function chatter(rng: Rng, names: NameBook, said: Set<string>): Exchange {
  for (;;) {
    const exchange = rng.chance(0.4) ? rng.pick(EVERYDAY) : rng.pick(TOPICS)(rng, names);
    if (said.has(exchange[0]!)) continue;
    said.add(exchange[0]!);
    return exchange;
  }
}
