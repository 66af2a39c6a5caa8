/**
 * A fake sentence model for the `local`/`tiered` embedders whose every call waits until the test
 * lets it answer, so what is stored before and after the model's vectors is the subject of a
 * test, never timing. Its vector for every text is MODEL_AXIS: a direction the static table never
 * gives a sentence, so an upgraded vector is told from the table's by one component.
 */
import { LocalModel } from "../../src/embedding/local-model.ts";
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { upgradedVector } from "../../src/embedding/tiered-embedder.ts";
import type { SentenceEncoder } from "../../src/embedding/use-lite.ts";

export const MODEL_AXIS = 7;

/** The model's vector: 1 on MODEL_AXIS, 0 elsewhere. */
export const modelVector = (dims = 512): number[] =>
  Array.from({ length: dims }, (_, i) => (i === MODEL_AXIS ? 1 : 0));

/** What `tiered` stores for `text` once this model has answered: its vector blended with the table's. */
export const upgradedModelVector = (text: string): Float32Array =>
  upgradedVector(Float32Array.from(modelVector()), new StaticEmbedder().embedSync(text));

/**
 * `open`: the calls held are answered, and those after at once; `texts` lists what reached it, in
 * order; `holding(n)` resolves once n calls wait.
 */
export class GatedModel implements SentenceEncoder {
  readonly texts: string[] = [];
  private readonly held: Array<() => void> = [];
  private arrived: (() => void) | undefined;
  private opened = false;

  embed(texts: string[]): Promise<number[][]> {
    this.texts.push(...texts);
    this.arrived?.();
    return new Promise((resolve) => {
      const answer = () => resolve(texts.map(() => modelVector()));
      if (this.opened) answer();
      else this.held.push(answer);
    });
  }

  open(): void {
    this.opened = true;
    for (const answer of this.held.splice(0)) answer();
  }

  /** Resolves once `n` calls wait for their answer. */
  async holding(n: number): Promise<void> {
    while (this.held.length < n) await new Promise<void>((resolve) => (this.arrived = resolve));
  }

  releaseNext(): void {
    this.held.shift()?.();
  }
}

/** The LocalModel a harness takes (`localModel`), its encoder `model`. */
export const gatedLocalModel = (model: GatedModel): LocalModel => new LocalModel({ load: async () => model });
