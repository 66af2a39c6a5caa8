/**
 * The conversation part of `bun run eval` scored through the route: the labelled set's sessions
 * written through `POST /memory/conversations` (turns and extracted entries), and the same turns
 * written turn by turn through `POST /memory/facts/batch` (the per-turn baseline), each in a fresh
 * tenant of the same runtime; then every question through `POST /memory/search` (limit 10, with
 * `valid_at` for the questions about back then). A result counts as the turns it stands for: a
 * turn itself, or an extracted entry's `data.extracted.turn_ids`.
 */
import { said } from "../../../src/conversations/extract/deterministic.ts";
import { sessionTag } from "../../../src/conversations/tags.ts";
import { round } from "../../stats.ts";
import { LIMIT } from "../retriever.ts";
import { ServiceClient } from "../service-client.ts";
import { embedded, startRuntime } from "../service-retriever.ts";
import type { LabelledSet, RouteQuestion } from "./labelled-set.ts";

export const ROUTE_SYSTEMS = ["per-turn", "conversation", "conversation:extracted"] as const;
type RouteSystem = (typeof ROUTE_SYSTEMS)[number];
type QuestionKind = RouteQuestion["kind"];

export interface RouteScores {
  questions: number;
  hit_at_1: number;
  recall_at_5: number;
  /** Share of questions where an earlier (or later) statement of the same key is the first result. */
  stale_first: number;
}

export interface RouteResult {
  embedder: string;
  status: "ok" | "skipped" | "failed";
  note?: string;
  systems?: Record<RouteSystem, Record<QuestionKind, RouteScores>>;
  load_s?: Record<"per-turn" | "conversation", number>;
}

interface Hit {
  entry: { session_id?: string; data?: { turn?: { position: number }; extracted?: { turn_ids: string[] } } };
}

const refKey = (r: { sessionId: string; position: number }) => `${r.sessionId}#${r.position}`;

/** Writes the set both ways in one runtime of `embedder`, asks every question of each system. */
export async function evaluateRoute(set: LabelledSet, embedder: string): Promise<RouteResult> {
  const { started, refused } = await startRuntime(embedder);
  if (!started) return { embedder, status: "skipped", note: refused };
  const client = new ServiceClient(started.runtime.app);
  try {
    const tenant = async (name: string) =>
      client.expect<{ tenant_id: string; token: string }>([201], "POST", "/admin/tenants", started.admin, {
        name,
      });
    const route = await tenant(`eval conversations ${embedder}`);
    const turns = await tenant(`eval per-turn ${embedder}`);
    const idToRef = new Map<string, string>();
    let t0 = performance.now();
    for (const s of set.sessions) {
      const messages = s.turns.map((t) => ({ speaker: t.speaker, content: t.content, at: t.at }));
      const reply = await client.expect<{ turns: Array<{ position: number; entry: { id: string } }> }>(
        [201],
        "POST",
        "/memory/conversations",
        route.token,
        { session_id: s.sessionId, subject: s.subject, messages },
      );
      for (const t of reply.turns)
        idToRef.set(t.entry.id, refKey({ sessionId: s.sessionId, position: t.position }));
    }
    await embedded(client, started.admin, route.tenant_id, started.waitForUpgrades);
    const routeLoad = performance.now() - t0;
    t0 = performance.now();
    for (const s of set.sessions) {
      const entries = s.turns.map((t, position) => ({
        content: said(t.speaker, t.content),
        valid_from: t.at,
        subject: s.subject,
        session_id: s.sessionId,
        tags: ["turn", sessionTag(s.sessionId)],
        data: { turn: { position } },
      }));
      await client.expect([201], "POST", "/memory/facts/batch", turns.token, { entries });
    }
    await embedded(client, started.admin, turns.tenant_id, started.waitForUpgrades);
    const turnLoad = performance.now() - t0;
    const ask = async (token: string, q: RouteQuestion, extra: Record<string, unknown> = {}) => {
      const body = {
        query: q.question,
        // An agent asks within the end user's memory: both tenants' entries carry the subject.
        subject: q.subject,
        limit: LIMIT,
        ...(q.validAt ? { valid_at: q.validAt } : {}),
        ...extra,
      };
      const answer = await client.expect<{ results: Hit[] }>([200], "POST", "/memory/search", token, body);
      return refsOf(answer.results, idToRef);
    };
    const systems = {
      "per-turn": await scoreAll(set, (q) => ask(turns.token, q)),
      conversation: await scoreAll(set, (q) => ask(route.token, q)),
      "conversation:extracted": await scoreAll(set, (q) => ask(route.token, q, { tags: ["extracted"] })),
    };
    return {
      embedder,
      status: "ok",
      systems,
      load_s: { "per-turn": round(turnLoad / 1000), conversation: round(routeLoad / 1000) },
    };
  } catch (error) {
    return { embedder, status: "failed", note: error instanceof Error ? error.message : String(error) };
  } finally {
    await started.close();
  }
}

/** The turns a ranking stands for, in order, each once. */
function refsOf(results: Hit[], idToRef: Map<string, string>): string[] {
  const out: string[] = [];
  for (const { entry } of results) {
    const turn = entry.data?.turn;
    const refs =
      turn && entry.session_id
        ? [refKey({ sessionId: entry.session_id, position: turn.position })]
        : (entry.data?.extracted?.turn_ids ?? []).map((id) => idToRef.get(id)).filter((r) => r !== undefined);
    for (const r of refs) if (!out.includes(r)) out.push(r);
  }
  return out;
}

async function scoreAll(
  set: LabelledSet,
  ask: (q: RouteQuestion) => Promise<string[]>,
): Promise<Record<QuestionKind, RouteScores>> {
  const sums: Record<string, { n: number; hit: number; r5: number; stale: number }> = {};
  for (const q of set.questions) {
    const ranked = await ask(q);
    const gold = new Set(q.evidence.map(refKey));
    const stale = new Set(q.stale.map(refKey));
    const s = sums[q.kind] ?? { n: 0, hit: 0, r5: 0, stale: 0 };
    sums[q.kind] = s;
    s.n++;
    if (ranked[0] && gold.has(ranked[0])) s.hit++;
    if (ranked.slice(0, 5).some((r) => gold.has(r))) s.r5++;
    if (ranked[0] && stale.has(ranked[0])) s.stale++;
  }
  const out = {} as Record<QuestionKind, RouteScores>;
  for (const [kind, s] of Object.entries(sums))
    out[kind as QuestionKind] = {
      questions: s.n,
      hit_at_1: round(s.hit / s.n),
      recall_at_5: round(s.r5 / s.n),
      stale_first: round(s.stale / s.n),
    };
  return out;
}
