/** Hobbies: taking up an instrument, a craft or a club, and a milestone in it later. */
import { article, type EpisodeKind, type Hobby, listItem, obj, owner, partner, poss, q } from "../episode.ts";
import { CLUBS, CRAFTS } from "../names.ts";
import { relativePast, weeksBetween } from "../time.ts";
import { INSTRUMENTS } from "../world.ts";

export const hobbyStart: EpisodeKind = {
  id: "hobby-start",
  weight: 2.5,
  max: 2,
  make({ rng, owner: o, spoken, names }) {
    const taken = new Set(o.hobbies.map((h) => h.kind));
    const kind = rng.pick((["instrument", "craft", "club"] as const).filter((k) => !taken.has(k)));
    const when = relativePast(rng, spoken);
    const teacher = `${rng.pick(["Mr.", "Ms."])} ${names.surname()}`;
    const price = rng.int(3, 12) * 5;
    if (kind === "instrument") {
      const instrument = rng.pick(INSTRUMENTS);
      const announce = owner(
        `I had my first ${instrument.name} lesson ${when.phrase}! I've wanted to learn since I was a kid.`,
      );
      const react = partner(`That's so cool! Who's teaching you?`);
      const detail = owner(
        `My teacher is ${teacher}, a retired orchestra player. Lessons are $${price} each and worth every cent.`,
      );
      o.hobbies.push({
        kind,
        name: instrument.name,
        line: announce,
        detail,
        teacher,
        date: when.date,
        milestone: false,
      });
      o.dated.push({ label: `starting ${instrument.name} lessons`, date: when.date, line: announce });
      listItem(o, "hobbies", { item: instrument.name, line: announce });
      return {
        lines: [announce, react, detail],
        questions: [
          q("single-hop", `Who teaches ${o.name} the ${instrument.name}?`, teacher, [detail]),
          q("single-hop", `How much does each of ${o.name}'s ${instrument.name} lessons cost?`, `$${price}`, [
            detail,
          ]),
          q(
            "temporal",
            `When did ${o.name} have ${poss(o.pronoun)} first ${instrument.name} lesson?`,
            when.answer,
            [announce],
          ),
          q("paraphrase", `Which tutor is showing ${o.name} how to play music?`, teacher, [detail]),
          q(
            "open-domain",
            `Which family of instruments does the one ${o.name} is learning belong to?`,
            instrument.family,
            [announce],
          ),
        ],
      };
    }
    if (kind === "craft") {
      const [craft] = rng.pick(CRAFTS);
      const announce = owner(
        `I signed up for a ${craft} class ${when.phrase}. Wednesday evenings at the community centre.`,
      );
      const react = partner(`Love that! Have you made anything yet?`);
      const detail = owner(
        `Nothing worth showing, but ${teacher} says I have steady hands. It's $${price} a session.`,
      );
      o.hobbies.push({
        kind,
        name: craft,
        line: announce,
        detail,
        teacher,
        date: when.date,
        milestone: false,
      });
      o.dated.push({ label: `starting a ${craft} class`, date: when.date, line: announce });
      listItem(o, "hobbies", { item: craft, line: announce });
      return {
        lines: [announce, react, detail],
        questions: [
          q("single-hop", `Which evening is ${o.name}'s ${craft} class?`, "Wednesday", [announce]),
          q("single-hop", `How much does ${o.name}'s ${craft} class cost?`, `$${price} a session`, [detail]),
          q("temporal", `When did ${o.name} sign up for a ${craft} class?`, when.answer, [announce]),
          q(
            "paraphrase",
            `Which weekday does ${o.name} spend on ${poss(o.pronoun)} new creative pastime?`,
            "Wednesday",
            [announce],
          ),
        ],
      };
    }
    const [club, event] = rng.pick(CLUBS);
    const announce = owner(`I joined a ${club} ${when.phrase}! Training is Tuesday and Saturday mornings.`);
    const react = partner(`Good for you! Isn't it exhausting?`);
    const detail = owner(
      `Completely, but the people are great. The coach, ${teacher}, wants me to enter the ${event}.`,
    );
    o.hobbies.push({ kind, name: club, line: announce, detail, teacher, date: when.date, milestone: false });
    o.dated.push({ label: `joining a ${club}`, date: when.date, line: announce });
    listItem(o, "hobbies", { item: club, line: announce });
    return {
      lines: [announce, react, detail],
      questions: [
        q("single-hop", `Who coaches ${o.name} at the ${club}?`, teacher, [detail]),
        q(
          "single-hop",
          `On which days does ${o.name} train with ${poss(o.pronoun)} ${club}?`,
          "Tuesday and Saturday mornings",
          [announce],
        ),
        q("temporal", `When did ${o.name} join a ${club}?`, when.answer, [announce]),
        q("paraphrase", `Which sports group did ${o.name} become a member of?`, `a ${club}`, [announce]),
      ],
    };
  },
};

const pending = (hobbies: Hobby[]) => hobbies.find((h) => !h.milestone);

export const hobbyMilestone: EpisodeKind = {
  id: "hobby-milestone",
  weight: 2,
  max: 2,
  ready: (person) => pending(person.hobbies) !== undefined,
  make({ rng, owner: o, spoken }) {
    const hobby = pending(o.hobbies)!;
    hobby.milestone = true;
    const when = relativePast(rng, spoken);
    if (hobby.kind === "instrument") {
      const audience = rng.int(20, 120);
      const announce = owner(
        `I played my first ${hobby.name} recital ${when.phrase}, in front of about ${audience} people!`,
      );
      const react = partner(`That's brave! Were you nervous?`);
      const detail = owner(`Terrified. I played a slow waltz and only missed two notes.`);
      o.dated.push({ label: `playing a first ${hobby.name} recital`, date: when.date, line: announce });
      return {
        lines: [announce, react, detail],
        questions: [
          q("single-hop", `How many people came to ${o.name}'s ${hobby.name} recital?`, `about ${audience}`, [
            announce,
          ]),
          q("single-hop", `What piece did ${o.name} play at ${poss(o.pronoun)} recital?`, "a slow waltz", [
            detail,
          ]),
          q("temporal", `When did ${o.name} play ${poss(o.pronoun)} first recital?`, when.answer, [announce]),
          q("multi-hop", `Who prepared ${o.name} for ${poss(o.pronoun)} first recital?`, hobby.teacher, [
            hobby.detail,
            announce,
          ]),
          q(
            "temporal",
            `How many weeks after ${poss(o.pronoun)} first ${hobby.name} lesson did ${o.name} play a recital?`,
            `about ${weeksBetween(hobby.date, when.date)} weeks`,
            [hobby.line, announce],
          ),
          q("paraphrase", `How big was the crowd at ${o.name}'s debut performance?`, `about ${audience}`, [
            announce,
          ]),
        ],
      };
    }
    if (hobby.kind === "craft") {
      const made = CRAFTS.find(([c]) => c === hobby.name)![1];
      const price = rng.int(4, 30) * 10;
      const announce = owner(
        `I sold my first piece ${when.phrase}: ${made}! A stranger paid $${price} at the craft fair.`,
      );
      const react = partner(`You're a professional now! That's incredible.`);
      o.dated.push({ label: `selling ${made}`, date: when.date, line: announce });
      return {
        lines: [announce, react],
        questions: [
          q("single-hop", `What did ${o.name} sell at the craft fair?`, made, [announce]),
          q(
            "multi-hop",
            `What did ${o.name} make in ${poss(o.pronoun)} ${hobby.name} class and sell?`,
            made,
            [hobby.line, announce],
          ),
          q("temporal", `When did ${o.name} sell ${poss(o.pronoun)} first piece?`, when.answer, [announce]),
          q("paraphrase", `How much money did ${o.name}'s handmade work fetch from a buyer?`, `$${price}`, [
            announce,
          ]),
        ],
      };
    }
    const event = CLUBS.find(([c]) => c === hobby.name)![1];
    const place = rng.pick([
      "placed third in my age group",
      "finished in the top half",
      "came second",
      "finished, which was the goal",
    ]);
    const announce = owner(`I did the ${event} ${when.phrase} and ${place}!`);
    const react = partner(`Amazing! All that training paid off.`);
    const detail = owner(`My legs are still sore. ${article("ice bath")} has never felt so good.`);
    o.dated.push({ label: `competing in the ${event}`, date: when.date, line: announce });
    return {
      lines: [announce, react, detail],
      questions: [
        q("single-hop", `How did ${o.name} do in the ${event}?`, place.replace("my", poss(o.pronoun)), [
          announce,
        ]),
        q("temporal", `When did ${o.name} compete in the ${event}?`, when.answer, [announce]),
        q(
          "multi-hop",
          `How did ${o.name} do in the event ${poss(o.pronoun)} coach ${hobby.teacher} wanted ${obj(o.pronoun)} to enter?`,
          place.replace("my", poss(o.pronoun)),
          [hobby.detail, announce],
        ),
        q(
          "paraphrase",
          `What was ${o.name}'s result in the race or competition ${poss(o.pronoun)} club prepared for?`,
          place,
          [announce],
        ),
      ],
    };
  },
};
