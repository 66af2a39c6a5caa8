import { Rng } from "./dataset/prng.ts";

/**
 * A labelled set of entry pairs for the merge threshold (docs/memory.md, "Merging near-duplicates"):
 * true duplicates (restatements: word order, a filler word, case, a synonym or two) and hard
 * negatives that share nearly every word and say something else (another invoice number, date,
 * amount or person; plan against done; a negation). Seeded: the same pairs on every machine.
 */
export interface LabelledPair {
  a: string;
  b: string;
  duplicate: boolean;
  kind: "restatement" | "paraphrase" | "invoice" | "date" | "amount" | "person" | "plan_vs_done" | "negation";
}

const CUSTOMERS = [
  "Acme Corp",
  "Globex",
  "Initech",
  "Umbrella",
  "Hooli",
  "Stark Industries",
  "Wayne Enterprises",
];
const PEOPLE = ["Alice", "Bob", "Carol", "Dmitri", "Esther", "Farid", "Grace", "Hiro"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "September", "October"];
const PRODUCTS = ["the analytics add-on", "the enterprise plan", "the mobile SDK", "premium support"];

/** A fact and its restatements and near-misses, each built from one seeded draw. */
function templates(r: Rng) {
  const c = r.pick(CUSTOMERS);
  const p = r.pick(PEOPLE);
  const q = r.pick(PEOPLE.filter((x) => x !== p));
  const inv = r.int(1000, 9999);
  const amount = r.int(2, 90) * 100;
  const day = r.int(1, 27);
  const month = r.pick(MONTHS);
  const other = r.pick(MONTHS.filter((m) => m !== month));
  const product = r.pick(PRODUCTS);
  return [
    {
      base: `Invoice INV-${inv} from ${c} for ${amount} EUR was paid on ${day} ${month}`,
      dups: [
        `invoice INV-${inv} from ${c} for ${amount} EUR was paid on ${day} ${month}.`,
        `Invoice INV-${inv} from ${c}, ${amount} EUR, was paid on ${day} ${month}`,
        `${c} invoice INV-${inv} for ${amount} EUR was paid on ${day} ${month}`,
      ],
      paraphrase: `${c} settled invoice INV-${inv} (${amount} EUR) on ${day} ${month}`,
      negatives: [
        ["invoice", `Invoice INV-${inv + 1} from ${c} for ${amount} EUR was paid on ${day} ${month}`],
        ["amount", `Invoice INV-${inv} from ${c} for ${amount + 100} EUR was paid on ${day} ${month}`],
        ["date", `Invoice INV-${inv} from ${c} for ${amount} EUR was paid on ${day} ${other}`],
        ["date", `Invoice INV-${inv} from ${c} for ${amount} EUR was paid on ${day + 1} ${month}`],
        ["negation", `Invoice INV-${inv} from ${c} for ${amount} EUR was not paid on ${day} ${month}`],
      ],
    },
    {
      base: `${p} will migrate ${c} to ${product} in ${month}`,
      dups: [
        `${p} will migrate ${c} to ${product} in ${month}.`,
        `In ${month} ${p} will migrate ${c} to ${product}`,
        `${p} will migrate customer ${c} to ${product} in ${month}`,
      ],
      paraphrase: `${p} is going to move ${c} onto ${product} in ${month}`,
      negatives: [
        ["plan_vs_done", `${p} migrated ${c} to ${product} in ${month}, done`],
        ["plan_vs_done", `${p} has completed the migration of ${c} to ${product} in ${month}`],
        ["person", `${q} will migrate ${c} to ${product} in ${month}`],
        ["date", `${p} will migrate ${c} to ${product} in ${other}`],
        ["negation", `${p} will not migrate ${c} to ${product} in ${month}`],
      ],
    },
    {
      base: `${c} renewed ${product} for ${amount} USD per month with ${p} as the account owner`,
      dups: [
        `${c} renewed ${product} for ${amount} USD per month, with ${p} as the account owner`,
        `${c} renewed ${product} for ${amount} USD per month with ${p} as account owner`,
        `With ${p} as the account owner, ${c} renewed ${product} for ${amount} USD per month`,
      ],
      paraphrase: `${c} signed a renewal of ${product} at ${amount} USD monthly; ${p} owns the account`,
      negatives: [
        ["amount", `${c} renewed ${product} for ${amount * 2} USD per month with ${p} as the account owner`],
        ["person", `${c} renewed ${product} for ${amount} USD per month with ${q} as the account owner`],
        [
          "negation",
          `${c} never renewed ${product} for ${amount} USD per month with ${p} as the account owner`,
        ],
        [
          "plan_vs_done",
          `${c} plans to renew ${product} for ${amount} USD per month with ${p} as the account owner`,
        ],
      ],
    },
  ] as const;
}

/** `rounds` draws of the templates: each gives its duplicates, one paraphrase and its negatives. */
export function mergeSet(seed = 33, rounds = 40): LabelledPair[] {
  const r = new Rng(seed);
  const pairs: LabelledPair[] = [];
  for (let i = 0; i < rounds; i++) {
    for (const t of templates(r)) {
      for (const d of t.dups) pairs.push({ a: t.base, b: d, duplicate: true, kind: "restatement" });
      pairs.push({ a: t.base, b: t.paraphrase, duplicate: true, kind: "paraphrase" });
      for (const [kind, b] of t.negatives) pairs.push({ a: t.base, b, duplicate: false, kind });
    }
  }
  return pairs;
}
