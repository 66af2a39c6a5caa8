/**
 * The systems an evaluation names: an embedder, or for `tiered` one of its two moments, since its
 * entries' vectors change under the reader (issue 30, item 6):
 *
 * - `tiered:ingest`: just after the writes, every entry holding the table's vector (the model is
 *   held back: its load waits until the runtime closes, so no upgrade lands while questions run);
 * - `tiered:upgraded`: once `index.pending_upgrades` is 0 in the tenant's health, every entry
 *   holding the model's vector, queries still embedded by the table.
 *
 * `tiered` alone in a list means both, in that order.
 */
import { LocalModel } from "../../src/embedding/local-model.ts";
import { loadUseLiteInWorker } from "../../src/embedding/worker-encoder.ts";

export interface EvalSystem {
  /** As reported (`tiered:ingest`). */
  name: string;
  /** MEMORY_RUNTIME_EMBEDDER. */
  embedder: string;
  /** The sentence model is held back until close: nothing is upgraded while the questions run. */
  holdModel: boolean;
  /** Whether a load waits for `pending_upgrades` 0 as well as `pending_vectors` 0. */
  waitForUpgrades: boolean;
}

const PHASES = ["ingest", "upgraded"] as const;

/** The systems of a comma-separated list's names, `tiered` expanded to its two moments. */
export function expandSystems(names: readonly string[]): string[] {
  return names.flatMap((name) => (name === "tiered" ? PHASES.map((p) => `tiered:${p}`) : [name]));
}

export function evalSystem(name: string): EvalSystem {
  const [embedder = name, phase] = name.split(":");
  // An unknown phase is left in the embedder's name, so the runtime refuses it with its message.
  if (phase !== undefined && !(PHASES as readonly string[]).includes(phase))
    return { name, embedder: name, holdModel: false, waitForUpgrades: true };
  return { name, embedder, holdModel: phase === "ingest", waitForUpgrades: phase !== "ingest" };
}

/** A sentence model whose load waits for `release` (rejected: the load fails, nothing is embedded). */
export function heldModel(): { model: LocalModel; release: () => void } {
  let release!: () => void;
  const held = new Promise<never>((_, reject) => {
    release = () => reject(new Error("the evaluation held the model back"));
  });
  held.catch(() => undefined);
  return { model: new LocalModel({ load: () => held.then(loadUseLiteInWorker) }), release };
}
