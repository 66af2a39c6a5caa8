/**
 * The soak's HTTP client: every request goes through `call`, which counts what became of it
 * (acknowledged, refused, a 5xx, or cut off by the kill) into the run's figures.
 */
import { type HttpAnswer, httpCall } from "../helpers/server-process.ts";
import type { Figures } from "./ledger.ts";

type CallOptions = Parameters<typeof httpCall>[3];

/** Only the first few refusals and 5xx are logged in full; the figures count all of them. */
const LOGGED = 10;

export class SoakClient {
  private logged = 0;

  constructor(
    readonly figures: Figures,
    private readonly log: (line: string) => void,
  ) {}

  /** The answer, or undefined when the connection died without one (the server was killed). */
  async call(
    base: string,
    method: string,
    path: string,
    opts?: CallOptions,
  ): Promise<HttpAnswer | undefined> {
    this.figures.requests++;
    let answer: HttpAnswer;
    try {
      answer = await httpCall(base, method, path, opts);
    } catch {
      this.figures.unanswered++;
      return undefined;
    }
    if (answer.status >= 500) this.figures.serverErrors++;
    else if (answer.status >= 400) this.figures.refused++;
    else this.figures.acknowledged++;
    if (answer.status >= 400 && this.logged++ < LOGGED) {
      this.log(`  ${method} ${path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    }
    return answer;
  }

  /** Counts one acknowledgement of an operation kind (for the summary's mix). */
  acked(kind: string): void {
    this.figures.acked[kind] = (this.figures.acked[kind] ?? 0) + 1;
  }
}

export const isAck = (answer: HttpAnswer | undefined): answer is HttpAnswer =>
  answer !== undefined && (answer.status === 200 || answer.status === 201);
