/**
 * The relevance features `bun run eval --ablation` flips, one at a time (docs/eval.md#ablation):
 * each is a name, whether the default configuration has it, and what flips it — variables of the
 * runtime's environment, fields added to every search body, or both. The runner measures the
 * default configuration of each embedder, then the same with each feature flipped: a feature of
 * the default turned off (`hash −entities`), an opt-in one turned on (`hash +rerank-builtin`).
 *
 * A feature of its own adds one item here; the runner needs nothing else.
 */

export interface Feature {
  /** Short and stable: the system's name in the report says `<embedder> −<name>` or `+<name>`. */
  name: string;
  description: string;
  /** `on`: part of the default configuration, the ablation turns it off; `off`: opt-in, turned on. */
  default: "on" | "off";
  /** The runtime's environment that flips it (added to the embedder's variables). */
  env?: Readonly<Record<string, string>>;
  /** Fields added to every `POST /memory/search` body that flip it. */
  controls?: Readonly<Record<string, unknown>>;
}

export const FEATURES: readonly Feature[] = [
  {
    name: "time",
    description:
      "the query's time expression read into a valid-time window boost (src/search/controls/time/)",
    default: "on",
    controls: { time_expressions: false },
  },
  {
    name: "context",
    description:
      "entries written together lend each other a share of their scores (src/search/controls/context/)",
    default: "on",
    controls: { context: false },
  },
  {
    name: "entities",
    description:
      "the query's entities pull in their entries, with a second hop (src/search/controls/entities/)",
    default: "on",
    controls: { entities: false },
  },
  {
    name: "rerank-builtin",
    description:
      "the built-in deterministic re-ranker over the top 30 fused hits (src/search/controls/rerank/)",
    default: "off",
    env: { MEMORY_RUNTIME_RERANKER: "builtin" },
  },
];

/** One system of a run: an embedder, and the feature flipped from its default configuration, if any. */
export interface Variant {
  /** `hash`, `hash −entities`, `hash +rerank-builtin`. */
  name: string;
  embedder: string;
  feature?: { name: string; state: "on" | "off" };
  env: Record<string, string>;
  controls: Record<string, unknown>;
}

export class UnknownFeature extends Error {}

/** The features named (all when none is), or UnknownFeature naming the first one not listed. */
export function featuresNamed(names: readonly string[] | undefined): Feature[] {
  if (!names?.length) return [...FEATURES];
  return names.map((name) => {
    const feature = FEATURES.find((f) => f.name === name);
    if (!feature)
      throw new UnknownFeature(
        `no feature "${name}" (known: ${FEATURES.map((f) => f.name).join(", ") || "none"})`,
      );
    return feature;
  });
}

/** The default configuration of each embedder, each followed by its variants with one feature flipped. */
export function variantsOf(embedders: readonly string[], features: readonly Feature[] = []): Variant[] {
  return embedders.flatMap((embedder) => [
    { name: embedder, embedder, env: {}, controls: {} },
    ...features.map((f) => {
      const state = f.default === "on" ? "off" : "on";
      return {
        name: `${embedder} ${state === "off" ? "−" : "+"}${f.name}`,
        embedder,
        feature: { name: f.name, state },
        env: { ...f.env },
        controls: { ...f.controls },
      } satisfies Variant;
    }),
  ]);
}

/** An embedder's name as the variant of its default configuration. */
export function asVariant(system: string | Variant): Variant {
  return typeof system === "string" ? { name: system, embedder: system, env: {}, controls: {} } : system;
}
