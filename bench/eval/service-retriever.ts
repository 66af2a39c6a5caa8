/**
 * The service as a retriever: a fresh runtime in this process (src/lib.ts's createRuntime) on a
 * temporary data directory, with one embedder and otherwise the default configuration. Each
 * conversation gets its own tenant; its turns are written as facts through
 * `POST /memory/facts/batch` and questions asked through `POST /memory/search` with limit 10,
 * exactly as the reference measurement does.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, createRuntime, type MemoryRuntime } from "../../src/lib.ts";
import { evalSystem, heldModel } from "./eval-systems.ts";
import { asVariant, type Variant } from "./features.ts";
import type { EvalConversation } from "./locomo.ts";
import { operatorToken } from "./operator-token.ts";
import { LIMIT, type Retriever, type Search, turnContent } from "./retriever.ts";
import { ServiceClient } from "./service-client.ts";

/** The API's largest batch, and its longest query. */
const BATCH = 1000;
const MAX_QUERY = 4096;

/** Embedders that cannot run on text alone or offline, and why. */
export function refusalBeforeStart(
  embedder: string,
  env: Record<string, string | undefined>,
): string | undefined {
  if (embedder === "http" && !env.MEMORY_RUNTIME_EMBEDDINGS_URL)
    return "the http embedder needs an endpoint (MEMORY_RUNTIME_EMBEDDINGS_URL); none is set";
  if (embedder === "client")
    return "the client embedder takes vectors from the caller; a text-only evaluation has none to send";
  return undefined;
}

export type Started =
  | { retriever: Retriever; refused?: undefined }
  | { retriever?: undefined; refused: string };

/** Waiting for the background embedder: how often health is asked, and how many failures in a row end the run. */
const EMBED_POLL_MS = 50;
const EMBED_FAILURES = 3;

interface EmbeddingHealth {
  pending_vectors: number;
  pending_upgrades?: number;
  embedder?: { failures: number; last_error?: string };
}

interface SearchAnswer {
  results: { entry: { data?: { dia_id?: string; session?: number } } }[];
}

function factsOf(conversation: EvalConversation) {
  return conversation.turns.map((turn) => ({
    content: turnContent(turn),
    valid_from: turn.validFrom.toISOString(),
    tags: [`session-${turn.session}`],
    data: { dia_id: turn.id, session: turn.session },
  }));
}

/** A runtime of the harness: the app, an operator token, and the environment its secrets are read from. */
export interface EvalRuntime {
  runtime: MemoryRuntime;
  admin: string;
  dataDir: string;
  /** Read at call time (src/secrets/secrets.ts): a tenant's webhook secrets may be set after start. */
  env: Record<string, string>;
  logs: string[];
  /** Whether a load waits for the upgrades too (`tiered`; not at `tiered:ingest`, eval-systems.ts). */
  waitForUpgrades: boolean;
  close(): Promise<void>;
}

/** Variables of the caller's environment a runtime of the harness is given: the embedder's and the re-ranker's. */
const PASSED_ON = ["MEMORY_RUNTIME_EMBEDD", "MEMORY_RUNTIME_RERANK"];

/**
 * Starts a runtime with `MEMORY_RUNTIME_EMBEDDER=<embedder>` (a system of eval-systems.ts:
 * `tiered:ingest` is `tiered` with its model held back); a runtime that refuses the
 * configuration (an embedder it does not know, a missing variable) is reported, not thrown.
 * Variables of the caller's environment starting MEMORY_RUNTIME_EMBEDD (endpoint, model, key,
 * dimensions) or MEMORY_RUNTIME_RERANK (the re-ranker's) are passed on, then a variant's own
 * (`variantEnv`, bench/eval/features.ts); nothing else is.
 */
export async function startRuntime(
  systemName: string,
  callerEnv: Record<string, string | undefined> = process.env,
  variantEnv: Readonly<Record<string, string>> = {},
): Promise<{ started: EvalRuntime; refused?: undefined } | { started?: undefined; refused: string }> {
  const system = evalSystem(systemName);
  const { embedder } = system;
  const before = refusalBeforeStart(embedder, callerEnv);
  if (before) return { refused: before };
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-eval-"));
  const secret = randomBytes(32).toString("hex");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(callerEnv))
    if (PASSED_ON.some((prefix) => key.startsWith(prefix)) && value !== undefined) env[key] = value;
  Object.assign(env, variantEnv, {
    MEMORY_RUNTIME_JWT_SECRET: secret,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_EMBEDDER: embedder,
    MEMORY_RUNTIME_LOG: "off",
    // Rate limits guard a shared service from runaway clients; they do not change a ranking.
    MEMORY_RUNTIME_RATE_LIMITS: "off",
  });
  const logs: string[] = [];
  const held = system.holdModel ? heldModel() : undefined;
  let runtime: MemoryRuntime;
  try {
    runtime = createRuntime({ env, log: (line) => logs.push(line), localModel: held?.model });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    if (error instanceof ConfigError) return { refused: `the runtime refused to start: ${error.message}` };
    throw error;
  }
  const close = async () => {
    held?.release();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const { waitForUpgrades } = system;
  const admin = await operatorToken(secret);
  return { started: { runtime, admin, dataDir, env, logs, waitForUpgrades, close } };
}

/**
 * The service as a retriever of conversations (one tenant each), on a fresh runtime: an embedder's
 * default configuration, or a variant of it (its environment, and fields added to every search).
 */
export async function startService(system: string | Variant, callerEnv = process.env): Promise<Started> {
  const variant = asVariant(system);
  const { started, refused } = await startRuntime(variant.embedder, callerEnv, variant.env);
  return started ? { retriever: new ServiceRetriever(started, variant.controls) } : { refused: refused! };
}

/**
 * Waits until the background embedder has embedded every entry of the tenant (`local` and `http`
 * embed after the write is answered) and, with `upgrades`, upgraded every table vector (`tiered`),
 * as a reader asking later would find them; an embedder failing again and again stops the run
 * with its error.
 */
export async function embedded(
  client: ServiceClient,
  admin: string,
  tenantId: string,
  upgrades = true,
): Promise<void> {
  for (;;) {
    const { index } = await client.expect<{ index: EmbeddingHealth }>(
      [200],
      "GET",
      `/tenants/${tenantId}/healthz`,
      admin,
    );
    if (index.pending_vectors === 0 && (!upgrades || !index.pending_upgrades)) return;
    if ((index.embedder?.failures ?? 0) >= EMBED_FAILURES)
      throw new Error(`the embedder keeps failing: ${index.embedder?.last_error}`);
    await Bun.sleep(EMBED_POLL_MS);
  }
}

class ServiceRetriever implements Retriever {
  private readonly client: ServiceClient;

  private readonly admin: string;

  constructor(
    private readonly started: EvalRuntime,
    private readonly controls: Readonly<Record<string, unknown>> = {},
  ) {
    this.client = new ServiceClient(started.runtime.app);
    this.admin = started.admin;
  }

  async load(conversation: EvalConversation): Promise<Search> {
    try {
      const token = await this.write(conversation);
      return (query) => this.search(token, query);
    } catch (error) {
      // The runtime's own log says why an embedder failed (a model missing, an endpoint down).
      const tail = this.started.logs.slice(-3).join(" | ");
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}${tail ? ` (log: ${tail})` : ""}`);
    }
  }

  /** A new tenant holding the conversation's turns, every one embedded; answers its token. */
  private async write(conversation: EvalConversation): Promise<string> {
    const { token, tenant_id } = await this.client.expect<{ token: string; tenant_id: string }>(
      [201],
      "POST",
      "/admin/tenants",
      this.admin,
      {
        name: `eval ${conversation.id} ${randomBytes(3).toString("hex")}`,
      },
    );
    const facts = factsOf(conversation);
    for (let i = 0; i < facts.length; i += BATCH) {
      await this.client.expect([200, 201], "POST", "/memory/facts/batch", token, {
        entries: facts.slice(i, i + BATCH),
      });
    }
    await embedded(this.client, this.admin, tenant_id, this.started.waitForUpgrades);
    return token;
  }

  private async search(token: string, query: string) {
    const answer = await this.client.expect<SearchAnswer>([200], "POST", "/memory/search", token, {
      ...this.controls,
      query: query.slice(0, MAX_QUERY),
      limit: LIMIT,
    });
    return answer.results.map((r) => ({
      id: String(r.entry.data?.dia_id),
      session: Number(r.entry.data?.session),
    }));
  }

  close(): Promise<void> {
    return this.started.close();
  }
}
