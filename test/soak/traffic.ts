/**
 * The soak's mixed traffic: single and batch writes (keyed by Idempotency-Key, identical content, or
 * plain), data-platform and payments webhook deliveries (some carrying an event that dead-letters),
 * messaging-bridge events in and out of order, replays of dead letters and redeliveries of past
 * events. Where a request may be retried by its client, COPIES identical copies arrive together, so
 * later copies are answered from the first one's pending write. Every answer lands in the ledger.
 */
import type { HttpAnswer, ServerProcess } from "../helpers/server-process.ts";
import { type DeadLetterRecord, eventKey, type TenantLedger } from "./ledger.ts";
import {
  chatEventId,
  chatMessage,
  invoiceFailed,
  jobEvent,
  jobEventId,
  paymentsHeaders,
  promotion,
  promotionEventId,
  promotionWithoutStage,
} from "./payloads.ts";
import { isAck, type SoakClient } from "./soak-client.ts";

export interface Target {
  base: string;
  /** The bridge adapter of an embedded server (test/soak/embedded-server.ts); absent for src/index.ts. */
  adapter?: string;
  admin: string;
  dataToken: string;
}

export interface TrafficRun {
  target: Target;
  tenants: TenantLedger[];
  client: SoakClient;
  random: () => number;
  cycle: number;
}

interface Op {
  /** Unique in the run: in every content, key and event id the operation makes. */
  label: string;
  /** Unique in the run too, for chat timestamps. */
  n: number;
  /** In the cycle's first round (one operation of each kind, so every kind is in flight at the kill). */
  first: boolean;
}

type Operation = (run: TrafficRun, t: TenantLedger, op: Op) => Promise<void>;

const COPIES = 3;
const WORKERS = 12;
/** Bounds a cycle whose kill point is never reached (everything refused). */
const MAX_OPS_PER_CYCLE = 5000;
const PLURALS = ["facts", "decisions", "exceptions", "workflows"];
/** `valid_from` of identical-content writes: copies then have the same canonical content. */
const FIXED_VALID_FROM = "2024-01-01T00:00:00.000Z";

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const times = <T>(n: number, f: () => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, f));
const sameIds = (a: string[], b: string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

function shuffle<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

type WriteMode = "keyed" | "identical" | "plain";

/** How a write's copies are made the same request: one key, one canonical content, or no copies. */
function writeMode(run: TrafficRun, label: string) {
  const mode = pick<WriteMode>(run.random, ["keyed", "identical", "plain"]);
  return {
    copies: mode === "plain" ? 1 : COPIES,
    headers: mode === "keyed" ? { "idempotency-key": `soak-${label}` } : undefined,
    fields: mode === "identical" ? { valid_from: FIXED_VALID_FROM } : {},
  };
}

const singleWrite: Operation = async (run, t, op) => {
  const plural = pick(run.random, PLURALS);
  const mode = writeMode(run, op.label);
  const body = { content: `soak ${op.label} single`, tags: ["soak"], ...mode.fields };
  const answers = await times(mode.copies, () =>
    run.client.call(run.target.base, "POST", `/memory/${plural}`, {
      token: t.token,
      headers: mode.headers,
      body,
    }),
  );
  const ids = new Set<string>();
  for (const a of answers.filter(isAck)) {
    t.ackEntry(a.body.id, plural);
    ids.add(a.body.id);
    run.client.acked("single write");
  }
  if (ids.size > 1)
    run.client.figures.doubles.push(`${op.label}: one write answered as ${[...ids].join(", ")}`);
};

const batchWrite: Operation = async (run, t, op) => {
  const plural = pick(run.random, PLURALS);
  const mode = writeMode(run, op.label);
  const size = 2 + Math.floor(run.random() * 5);
  const entries = Array.from({ length: size }, (_, i) => ({
    content: `soak ${op.label} item ${i}`,
    tags: ["soak", "batch"],
    ...mode.fields,
  }));
  const answers = await times(mode.copies, () =>
    run.client.call(run.target.base, "POST", `/memory/${plural}/batch`, {
      token: t.token,
      headers: mode.headers,
      body: { entries },
    }),
  );
  let first: string[] | undefined;
  for (const a of answers.filter(isAck)) {
    const ids = (a.body.entries as Array<{ id: string }>).map((e) => e.id);
    for (const id of ids) t.ackEntry(id, plural);
    if (first && !sameIds(first, ids))
      run.client.figures.doubles.push(`${op.label}: batch answered twice differently`);
    first ??= ids;
    run.client.acked("batch write");
  }
};

/** Records a webhook summary's entries; a mapped event is owned, a dead-lettering one is a dead letter. */
function ownSummary(
  t: TenantLedger,
  source: string,
  body: { entries: string[] },
  mapped: string[],
  dead: string[],
) {
  for (const id of body.entries) t.ackEntry(id);
  for (const eventId of mapped) t.ownEvent(source, eventId, "entry");
  // Answered 200 with this event in it: dead-lettered now, or a duplicate of its dead letter.
  for (const eventId of dead) t.ackDeadLetter(source, eventId);
}

const dataDelivery: Operation = async (run, t, op) => {
  const runIds = Array.from({ length: 1 + Math.floor(run.random() * 4) }, (_, i) => `${op.label}-${i}`);
  const withDead = op.first || run.random() < 0.3;
  const events: unknown[] = shuffle(run.random, [
    ...runIds.map(jobEvent),
    ...(withDead ? [promotionWithoutStage(op.label)] : []),
  ]);
  const body = events.length === 1 ? events[0] : events;
  const answers = await times(COPIES, () => postData(run, t, body));
  for (const a of answers.filter(isAck)) {
    ownSummary(t, "data", a.body, runIds.map(jobEventId), withDead ? [promotionEventId(op.label)] : []);
    run.client.acked(withDead ? "webhook with dead letter" : "webhook");
  }
  if (answers.some(isAck)) t.remember({ kind: "data", body, events: events.length }, run.random);
};

function postData(run: TrafficRun, t: TenantLedger, body: unknown): Promise<HttpAnswer | undefined> {
  return run.client.call(run.target.base, "POST", `/webhooks/data/${t.tenantId}`, {
    headers: { authorization: `Bearer ${run.target.dataToken}` },
    body,
  });
}

const paymentsDelivery: Operation = async (run, t, op) => {
  const eventId = `evt_soak_${op.label}`;
  const event = invoiceFailed(eventId, Math.floor(Date.now() / 1000));
  const answers = await times(COPIES, () => postPayments(run, t, event));
  for (const a of answers.filter(isAck)) {
    ownSummary(t, "payments", a.body, [eventId], []);
    run.client.acked("webhook");
  }
  if (answers.some(isAck)) t.remember({ kind: "payments", body: event, events: 1 }, run.random);
};

async function postPayments(
  run: TrafficRun,
  t: TenantLedger,
  event: unknown,
): Promise<HttpAnswer | undefined> {
  const path = `/webhooks/payments/${t.tenantId}`;
  // httpCall sends JSON.stringify(event): these are the bytes signed.
  const headers = await paymentsHeaders(JSON.stringify(event), run.target.base + path);
  return run.client.call(run.target.base, "POST", path, { headers, body: event });
}

function postBridge(run: TrafficRun, t: TenantLedger, event: unknown): Promise<HttpAnswer | undefined> {
  return run.client.call(run.target.adapter!, "POST", `/events/${t.tenantId}`, { body: event });
}

/** A chat message and, often, the ✅ that promotes it; half of those arrive reaction first. */
const bridgeThread: Operation = async (run, t, op) => {
  const promote = run.random() < 0.6;
  if (promote && run.random() < 0.5) {
    // Out of order: the reaction is a dead letter until its message exists, then replayed (as an adapter would).
    const early = await sendReaction(run, t, op.n);
    if (!(await sendMessage(run, t, op)) || early !== "dead") return;
    const record = t.deadLetters.get(eventKey("messaging", chatEventId(op.n, "reaction_added")));
    if (record) await replayRecord(run, t, record);
    return;
  }
  if (!(await sendMessage(run, t, op)) || !promote) return;
  // The message was acknowledged before its reaction left: the reaction must find it.
  if ((await sendReaction(run, t, op.n)) === "dead")
    run.client.figures.losses.push(`${op.label}: acknowledged message not found by its ✅`);
};

async function sendMessage(run: TrafficRun, t: TenantLedger, op: Op): Promise<boolean> {
  const message = chatMessage(op.n, `soak ${op.label} chat`);
  const answers = await times(COPIES, () => postBridge(run, t, message));
  for (const a of answers.filter(isAck)) {
    for (const id of a.body.entries) t.ackEntry(id);
    t.ownEvent("messaging", chatEventId(op.n, "message"), "entry");
    run.client.acked("bridge event");
  }
  if (!answers.some(isAck)) return false;
  t.remember({ kind: "bridge", body: message, events: 1 }, run.random);
  return true;
}

async function sendReaction(
  run: TrafficRun,
  t: TenantLedger,
  n: number,
): Promise<"none" | "dead" | "written"> {
  const eventId = chatEventId(n, "reaction_added");
  const answers = (await times(COPIES, () => postBridge(run, t, promotion(n)))).filter(isAck);
  for (const a of answers) {
    for (const id of a.body.entries) t.ackEntry(id);
    run.client.acked("bridge event");
  }
  if (answers.some((a) => a.body.dead_lettered.length > 0)) {
    t.ackDeadLetter("messaging", eventId);
    return "dead";
  }
  if (answers.some((a) => a.body.entries.length > 0)) {
    t.ownEvent("messaging", eventId, "entry");
    return "written";
  }
  // Only duplicates answered: the copy handled first got no answer (the kill cut it off).
  if (answers.length > 0) t.ownEvent("messaging", eventId, "either");
  return "none";
}

/** COPIES concurrent replays of one dead letter. */
async function replayRecord(run: TrafficRun, t: TenantLedger, record: DeadLetterRecord): Promise<void> {
  record.maxAttempts += COPIES;
  const path = `/admin/webhooks/replay/${t.tenantId}/${encodeURIComponent(record.eventId)}?source=${record.source}`;
  const answers = await times(COPIES, () =>
    run.client.call(run.target.base, "POST", path, { token: run.target.admin }),
  );
  for (const a of answers.filter(isAck)) {
    run.client.acked(a.body.status === "replayed" ? "replay (replayed)" : "replay (dead again)");
    if (a.body.status === "dead") {
      record.minAttempts++;
      continue;
    }
    const entries = a.body.entries as string[];
    for (const id of entries) t.ackEntry(id);
    if (record.replayed && !sameIds(record.replayed, entries))
      run.client.figures.doubles.push(
        `replay of ${record.eventId}: entries ${record.replayed} then ${entries}`,
      );
    record.replayed ??= entries;
  }
}

const replayDeadLetter: Operation = async (run, t, op) => {
  const records = [...t.deadLetters.values()];
  if (records.length === 0) return singleWrite(run, t, op);
  await replayRecord(run, t, pick(run.random, records));
};

/** A past delivery sent again: it must be answered as duplicates, writing nothing. */
const redeliver: Operation = async (run, t, op) => {
  const candidates = t.past.filter((p) => p.kind !== "bridge" || run.target.adapter);
  if (candidates.length === 0) return singleWrite(run, t, op);
  const past = pick(run.random, candidates);
  const answer =
    past.kind === "data"
      ? await postData(run, t, past.body)
      : past.kind === "payments"
        ? await postPayments(run, t, past.body)
        : await postBridge(run, t, past.body);
  if (!isAck(answer)) return;
  run.client.acked("redelivery");
  const { entries, duplicates } = answer.body as { entries: string[]; duplicates: number };
  if (entries.length > 0 || duplicates !== past.events)
    run.client.figures.doubles.push(`redelivery (${past.kind}) answered ${JSON.stringify(answer.body)}`);
};

const WEIGHTS: Array<[Operation, number, "bridge"?]> = [
  [singleWrite, 22],
  [batchWrite, 14],
  [dataDelivery, 20],
  [paymentsDelivery, 10],
  [bridgeThread, 16, "bridge"],
  [replayDeadLetter, 10],
  [redeliver, 8],
];

/** The n-th operation of a cycle: the first round takes each kind once, then they are drawn by weight. */
function chooseOperation(run: TrafficRun, n: number): Operation {
  const usable = WEIGHTS.filter(([, , needs]) => !needs || run.target.adapter);
  if (n < usable.length) return usable[n]![0];
  let roll = run.random() * usable.reduce((sum, [, w]) => sum + w, 0);
  for (const [operation, weight] of usable) {
    roll -= weight;
    if (roll < 0) return operation;
  }
  return singleWrite;
}

/**
 * WORKERS clients run operations until `killAfter` requests have been acknowledged this cycle, then
 * the server gets SIGKILL with the other clients' requests in flight. Returns the cycle's acks.
 */
export async function trafficUntilKill(
  run: TrafficRun,
  server: ServerProcess,
  killAfter: number,
): Promise<number> {
  const figures = run.client.figures;
  const start = figures.acknowledged;
  let killed = false;
  let n = 0;
  const kill = () => {
    killed = true;
    server.proc.kill(9);
  };
  const worker = async () => {
    while (!killed && n < MAX_OPS_PER_CYCLE) {
      const operation = chooseOperation(run, n);
      const op = { label: `c${run.cycle}-o${n}`, n: run.cycle * 100_000 + n, first: n < WEIGHTS.length };
      n++;
      try {
        await operation(run, pick(run.random, run.tenants), op);
      } catch (error) {
        figures.unclean.push(`${op.label}: the soak's own operation failed: ${error}`);
      }
      if (!killed && figures.acknowledged - start >= killAfter) kill();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  if (!killed) kill();
  await server.proc.exited;
  return figures.acknowledged - start;
}
