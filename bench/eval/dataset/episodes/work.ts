/** Work: the job a person has when the conversations begin, a new job, a promotion. */
import { article, type EpisodeKind, type Job, listItem, owner, partner, poss, q } from "../episode.ts";
import { monthsBetween, relativePast } from "../time.ts";
import { ROLES } from "../world.ts";

const currentJob = (jobs: Job[]) => jobs[jobs.length - 1];

export const jobIntro: EpisodeKind = {
  id: "job-intro",
  weight: 0,
  max: 1,
  make({ rng, owner: o, names }) {
    const role = rng.pick(ROLES);
    const company = names.company(role.suffixes);
    const years = rng.int(2, 9);
    const manager = names.person();
    const line = owner(
      rng.pick([
        `Work has been hectic. Being ${article(role.title)} at ${company} never gets quiet in spring.`,
        `Same old, lots of late evenings at ${company}. That's life as ${article(role.title)}, I guess.`,
      ]),
    );
    const ask = partner(`How long have you been there now?`);
    const tenure = owner(
      `Almost ${years} years. My manager ${manager.name} is honestly the reason I've stayed that long.`,
    );
    o.jobs.push({
      title: role.title,
      sector: role.sector,
      company,
      line,
      date: new Date(0),
      promoted: false,
    });
    listItem(o, "jobs", { item: `${role.title} at ${company}`, line });
    return {
      lines: [line, ask, tenure],
      questions: [
        q("single-hop", `Where did ${o.name} work as ${article(role.title)}?`, company, [line]),
        q("single-hop", `Who was ${o.name}'s manager at ${company}?`, manager.name, [tenure]),
        q(
          "paraphrase",
          `Which boss kept ${o.name} loyal to ${poss(o.pronoun)} employer for years?`,
          manager.name,
          [tenure],
        ),
        q("open-domain", `Which sector is ${o.name}'s job at ${company} in?`, role.sector, [line]),
      ],
    };
  },
};

export const jobChange: EpisodeKind = {
  id: "job-change",
  weight: 1.5,
  max: 1,
  ready: (person) => person.jobs.length > 0,
  make({ rng, owner: o, spoken, names }) {
    const previous = currentJob(o.jobs)!;
    const role = rng.pick(ROLES.filter((r) => r.title !== previous.title));
    const company = names.company(role.suffixes);
    const when = relativePast(rng, spoken);
    const minutes = rng.pick([15, 20, 25, 35, 40, 50]);
    const mode = rng.pick(["by bike", "by train", "on the bus", "on foot", "by car"]);
    const team = rng.int(4, 30);
    const announce = owner(
      rng.pick([
        `Guess what, my first day as ${article(role.title)} at ${company} was ${when.phrase}!`,
        `I finally left ${previous.company}. I started at ${company} ${when.phrase}, as ${article(role.title)}.`,
      ]),
    );
    const react = partner(`Congratulations!! How does it feel so far?`);
    const detail = owner(
      `Good! The team at ${company} is ${team} people and my commute is ${minutes} minutes ${mode}.`,
    );
    const echo = partner(`That's so much better than my commute, I spend an hour on the train every day.`);
    const job: Job = {
      title: role.title,
      sector: role.sector,
      company,
      line: announce,
      date: when.date,
      promoted: false,
    };
    o.jobs.push(job);
    o.dated.push({ label: `starting at ${company}`, date: when.date, line: announce });
    listItem(o, "jobs", { item: `${role.title} at ${company}`, line: announce });
    return {
      lines: [announce, react, detail, echo],
      questions: [
        q("single-hop", `How long is ${o.name}'s commute to ${company}?`, `${minutes} minutes ${mode}`, [
          detail,
        ]),
        q("single-hop", `How many people are on ${o.name}'s team at ${company}?`, String(team), [detail]),
        q("temporal", `When did ${o.name} start working at ${company}?`, when.answer, [announce]),
        q("multi-hop", `Where did ${o.name} work before joining ${company}?`, previous.company, [
          previous.line,
          announce,
        ]),
        q(
          "paraphrase",
          `How much time does ${o.name} spend travelling to the office each day?`,
          `${minutes} minutes ${mode}`,
          [detail],
        ),
        q(
          "open-domain",
          `Which sector did ${o.name} move into with ${poss(o.pronoun)} new job?`,
          role.sector,
          [announce],
        ),
      ],
    };
  },
};

export const promotion: EpisodeKind = {
  id: "promotion",
  weight: 1.5,
  max: 1,
  ready: (person) => {
    const job = currentJob(person.jobs);
    return job !== undefined && !job.promoted;
  },
  make({ rng, owner: o, spoken }) {
    const job = currentJob(o.jobs)!;
    job.promoted = true;
    const when = relativePast(rng, spoken);
    const raise = rng.pick([5, 8, 10, 12, 15]);
    const reports = rng.int(2, 7);
    const title = `senior ${job.title}`;
    const announce = owner(`I got promoted ${when.phrase}! I'm officially ${article(title)} now.`);
    const react = partner(`You totally deserve it! Did they at least give you a raise?`);
    const detail = owner(`A ${raise} percent raise, and I'll be leading a group of ${reports} people.`);
    o.dated.push({ label: `getting promoted to ${title}`, date: when.date, line: announce });
    const questions = [
      q(
        "single-hop",
        `How big a raise did ${o.name} get with ${poss(o.pronoun)} promotion?`,
        `${raise} percent`,
        [detail],
      ),
      q("temporal", `When was ${o.name} promoted to ${title}?`, when.answer, [announce]),
      q("multi-hop", `What title did ${o.name} earn at ${job.company}?`, title, [job.line, announce]),
      q(
        "paraphrase",
        `What pay increase came with ${o.name}'s step up the career ladder?`,
        `${raise} percent`,
        [detail],
      ),
    ];
    if (job.date.getTime() > 0) {
      const months = monthsBetween(job.date, when.date);
      questions.push(
        q(
          "temporal",
          `How many months after starting at ${job.company} was ${o.name} promoted?`,
          `about ${months} months`,
          [job.line, announce],
        ),
      );
    }
    return { lines: [announce, react, detail], questions };
  },
};
