/**
 * Hands out names within one conversation without repeats, so a question naming a person, pet,
 * band or company points at one thing only.
 */
import { BANDS, BOOKS, PEOPLE, PET_NAMES, type Pronoun, SURNAMES } from "./names.ts";
import type { Rng } from "./prng.ts";
import { COMPANY_PREFIXES } from "./world.ts";

/** Names kept back from passers-by: more than a conversation's stories ever need. */
const RESERVED_FOR_STORIES = 16;

export class NameBook {
  private readonly used = new Set<string>();

  constructor(private readonly rng: Rng) {}

  /** Marks names as taken (the two speakers). */
  reserve(...names: string[]): void {
    for (const name of names) this.used.add(name);
  }

  person(pronoun?: Pronoun): { name: string; pronoun: Pronoun } {
    const choices = PEOPLE.filter(([name, p]) => !this.used.has(name) && (!pronoun || p === pronoun));
    const [name, p] = this.take(choices, ([n]) => n);
    return { name, pronoun: p };
  }

  /**
   * A name for someone mentioned in passing, or undefined once the names left are kept for the
   * people the questions are about (relatives, managers, babies).
   */
  passerby(): string | undefined {
    const free = PEOPLE.filter(([name]) => !this.used.has(name));
    if (free.length <= RESERVED_FOR_STORIES) return undefined;
    return this.person().name;
  }

  pet(): string {
    return this.take(
      PET_NAMES.filter((n) => !this.used.has(n)),
      (n) => n,
    );
  }

  surname(): string {
    return this.take(
      SURNAMES.filter((n) => !this.used.has(n)),
      (n) => n,
    );
  }

  company(suffixes: readonly string[]): string {
    const prefix = this.take(
      COMPANY_PREFIXES.filter((n) => !this.used.has(n)),
      (n) => n,
    );
    return `${prefix} ${this.rng.pick(suffixes)}`;
  }

  band(): string {
    return this.take(
      BANDS.filter((n) => !this.used.has(n)),
      (n) => n,
    );
  }

  book(): readonly [string, string] {
    return this.take(
      BOOKS.filter(([title]) => !this.used.has(title)),
      ([title]) => title,
    );
  }

  private take<T>(choices: readonly T[], key: (t: T) => string): T {
    if (choices.length === 0) throw new Error("name book: every name of this kind is taken");
    const chosen = this.rng.pick(choices);
    this.used.add(key(chosen));
    return chosen;
  }
}
