/**
 * The `transcripts` set of `bun run eval` (docs/conversations.md#measured): the extractor's
 * precision and recall per kind on the labelled set, then, for each embedder, the set written
 * through `POST /memory/conversations` and asked beside the per-turn baseline (route-eval.ts).
 */
import { EXTRACT_KINDS } from "../../../src/models/conversation.ts";
import { machine, round } from "../../stats.ts";
import { headCommit } from "../evaluate.ts";
import { asVariant, type Variant } from "../features.ts";
import { markdown } from "../report.ts";
import { type ExtractorScore, scoreExtractor } from "./extractor-score.ts";
import { LABELLED_SET_NAME, labelledSet } from "./labelled-set.ts";
import { evaluateRoute, ROUTE_SYSTEMS, type RouteResult } from "./route-eval.ts";

export interface TranscriptsReport {
  dataset: {
    name: string;
    personas: number;
    sessions: number;
    turns: number;
    labels: number;
    questions: Record<string, number>;
  };
  procedure: Record<string, string>;
  extractor: ExtractorScore;
  route: RouteResult[];
  date: string;
  commit: string | undefined;
  machine: ReturnType<typeof machine>;
  total_s: number;
}

const PROCEDURE = {
  set: "bench/eval/conversations/labelled-set.ts, seed 3232: personas of four sessions a month apart, each user line drawn from one kind's templates (the rules' phrasings, and held-out ones they were not written for) or a distractor, labelled with its kind; a home and an employer stated in sessions 1-2 and changed in sessions 3-4",
  extractor:
    "a draft of kind K from turn t is right when t is labelled K; precision = right / drafted, recall = right / labelled, per kind",
  route:
    "one runtime per embedder; the sessions through POST /memory/conversations into one tenant, the same turns ('<speaker>: <text>', valid_from the message time) through POST /memory/facts/batch into another",
  search:
    "POST /memory/search {query, subject, limit: 10} (the persona's own memory), valid_at for the questions about back then; conversation:extracted adds tags [extracted]",
  scoring:
    "a result stands for its turns (a turn itself, an extracted entry's data.extracted.turn_ids); hit@1: the first is an evidence turn; R@5: one among the first 5; stale first: the first is the other statement about the same key",
};

/** Each embedder once, in its default configuration (an ablation's variants are not run here). */
export async function evaluateTranscripts(
  systems: readonly (string | Variant)[],
  small: boolean,
  log: (line: string) => void = () => undefined,
): Promise<TranscriptsReport> {
  const started = performance.now();
  const set = labelledSet(small ? 3 : undefined);
  const extractor = scoreExtractor(set);
  log(`transcripts: extractor precision ${extractor.overall.precision}, recall ${extractor.overall.recall}`);
  const route: RouteResult[] = [];
  const embedders = systems
    .map(asVariant)
    .filter((v) => v.feature === undefined)
    .map((v) => v.embedder);
  for (const embedder of embedders) {
    log(`transcripts: ${embedder}: starting`);
    route.push(await evaluateRoute(set, embedder));
  }
  const questions: Record<string, number> = {};
  for (const q of set.questions) questions[q.kind] = (questions[q.kind] ?? 0) + 1;
  return {
    dataset: {
      name: LABELLED_SET_NAME,
      personas: new Set(set.sessions.map((s) => s.subject)).size,
      sessions: set.sessions.length,
      turns: extractor.turns,
      labels: EXTRACT_KINDS.reduce((n, k) => n + extractor.by_kind[k].labelled, 0),
      questions,
    },
    procedure: PROCEDURE,
    extractor,
    route,
    date: new Date().toISOString(),
    commit: headCommit(),
    machine: machine(),
    total_s: round((performance.now() - started) / 1000),
  };
}

const f = (x: number | null | undefined) => (x == null ? "—" : x.toFixed(3));

export function formatTranscriptsReport(r: TranscriptsReport): string {
  const e = r.extractor;
  const lines = [
    `${r.dataset.name}: ${r.dataset.turns} turns, ${r.dataset.labels} labels; extractor ${e.extractor}`,
    markdown([
      [
        "kind",
        "labelled",
        "drafted",
        "precision",
        "recall",
        "recall (rules' phrasings)",
        "recall (held out)",
      ],
      ...EXTRACT_KINDS.map((k) => {
        const s = e.by_kind[k];
        return [
          k,
          String(s.labelled),
          String(s.extracted),
          f(s.precision),
          f(s.recall),
          f(s.recall_covered),
          f(s.recall_held_out),
        ];
      }),
      ["overall", "", "", f(e.overall.precision), f(e.overall.recall), "", ""],
    ]),
    "",
  ];
  for (const result of r.route) {
    if (result.status !== "ok" || !result.systems) {
      lines.push(`${result.embedder}: ${result.status}: ${result.note ?? ""}`);
      continue;
    }
    const kinds = Object.keys(result.systems["per-turn"]);
    const rows = ROUTE_SYSTEMS.flatMap((system) =>
      kinds.map((kind) => {
        const s = result.systems![system][kind as keyof (typeof result.systems)[typeof system]];
        return [system, kind, String(s.questions), f(s.hit_at_1), f(s.recall_at_5), f(s.stale_first)];
      }),
    );
    lines.push(
      `through the route, MEMORY_RUNTIME_EMBEDDER=${result.embedder} (load: per-turn ${result.load_s?.["per-turn"]} s, conversation ${result.load_s?.conversation} s)`,
      markdown([["system", "question kind", "n", "hit@1", "R@5", "stale first"], ...rows]),
      "",
    );
  }
  return lines.join("\n");
}
