/** Injuries and illnesses. */
import { type EpisodeKind, obj, owner, partner, poss, q } from "../episode.ts";
import { relativePast } from "../time.ts";
import { AILMENTS, SPORTS } from "../world.ts";

export const health: EpisodeKind = {
  id: "health",
  weight: 2,
  max: 2,
  make({ rng, owner: o, spoken, names }) {
    const had = new Set((o.lists.get("ailments") ?? []).map((l) => l.item));
    const ailment = rng.pick(AILMENTS.filter((a) => !had.has(a.topic)));
    const sport = ailment.fromSport ? rng.pick(SPORTS) : undefined;
    const when = relativePast(rng, spoken);
    const weeks = rng.int(2, 8);
    const doctor = `Dr. ${names.surname()}`;
    const topic = ailment.topic;
    const announce = owner(
      sport
        ? `Ugh, I ${ailment.told} ${when.phrase} ${sport.doing}.`
        : `Sorry I went quiet, I ${ailment.told} ${when.phrase}.`,
    );
    const react = partner(
      rng.pick([
        "Oh no, I'm so sorry! How are you feeling?",
        "Ouch! Are you okay?",
        "That sounds awful. How are you holding up?",
      ]),
    );
    const detail = owner(
      sport
        ? `Better now. ${doctor} says ${weeks} weeks of rest for my ${topic}, then physio twice a week.`
        : `Better now. ${doctor} says I need ${weeks} weeks off work to get over the ${topic}.`,
    );
    const echo = partner(
      rng.pick([
        `Take it easy. My roommate had the same thing last year and went back too early.`,
        `Let me know if you need groceries or anything, seriously.`,
      ]),
    );
    o.lists.set("ailments", [...(o.lists.get("ailments") ?? []), { item: topic, line: announce }]);
    o.dated.push({
      label: sport ? `hurting ${poss(o.pronoun)} ${topic}` : `falling ill (${topic})`,
      date: when.date,
      line: announce,
    });
    const questions = [
      q(
        "single-hop",
        `How many weeks of rest did ${doctor} prescribe for ${o.name}'s ${topic}?`,
        `${weeks} weeks`,
        [detail],
      ),
      q("single-hop", `Which doctor is treating ${o.name}'s ${topic}?`, doctor, [detail]),
      q("temporal", `When did ${o.name} have trouble with ${poss(o.pronoun)} ${topic}?`, when.answer, [
        announce,
      ]),
      q(
        "paraphrase",
        `How long does ${o.name}'s physician want ${obj(o.pronoun)} to recuperate?`,
        `${weeks} weeks`,
        [detail],
      ),
    ];
    if (sport) {
      questions.push(
        q("single-hop", `How did ${o.name} hurt ${poss(o.pronoun)} ${topic}?`, sport.doing, [announce]),
        q("paraphrase", `During which game did ${o.name} get injured?`, sport.name, [announce]),
        q(
          "open-domain",
          `In which country was the sport ${o.name} got hurt playing invented?`,
          sport.origin,
          [announce],
        ),
      );
    } else {
      questions.push(
        q(
          "paraphrase",
          `What medical problem kept ${o.name} away for a while?`,
          ailment.told.replace("my", poss(o.pronoun)),
          [announce],
        ),
      );
    }
    return { lines: [announce, react, detail, echo], questions };
  },
};
