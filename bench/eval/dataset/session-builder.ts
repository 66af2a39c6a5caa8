/**
 * Lays episodes and small talk out as one session's turns, speakers strictly alternating as in
 * LoCoMo, and records each turn's `D<session>:<turn>` id by its Line object.
 */
import { alternate, type Exchange, prompt } from "./chatter.ts";
import type { Line } from "./episode.ts";
import { fixArticles } from "./grammar.ts";
import type { Rng } from "./prng.ts";

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}

export class SessionBuilder {
  readonly turns: Turn[] = [];

  constructor(
    private readonly index: number,
    private readonly rng: Rng,
    /** Filled with the id of every line placed, across sessions. */
    private readonly ids: Map<Line, string>,
  ) {}

  private get lastSpeaker(): string | undefined {
    return this.turns[this.turns.length - 1]?.speaker;
  }

  private place(speaker: string, line: Line): void {
    const dia_id = `D${this.index}:${this.turns.length + 1}`;
    this.turns.push({ speaker, dia_id, text: fixArticles(line.text) });
    this.ids.set(line, dia_id);
  }

  /** An episode's lines; when its owner spoke last, the other first asks for news. */
  episode(lines: Line[], ownerName: string, partnerName: string): void {
    const speakerOf = (line: Line) => (line.by === "owner" ? ownerName : partnerName);
    if (lines.length > 0 && speakerOf(lines[0]!) === this.lastSpeaker) {
      this.place(partnerName, { by: "partner", text: prompt(this.rng) });
    }
    for (const line of lines) this.place(speakerOf(line), line);
  }

  /** Small talk, opened by whoever did not speak last. */
  exchange(texts: Exchange, a: string, b: string): void {
    const opener = this.lastSpeaker === a ? b : a;
    const other = opener === a ? b : a;
    this.episode(alternate(texts), opener, other);
  }
}
