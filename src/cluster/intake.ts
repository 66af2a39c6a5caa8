/**
 * Durable webhook intake (docs/cluster.md, "Durable webhook intake"): the receiving node publishes
 * the delivery, byte for byte, to the work-queue stream `MR_INTAKE` (subject `mr.intake.<NN>`,
 * `Nats-Msg-Id` = tenant, source and its event ids, checked and parsed at the edge (intake-edge.ts),
 * else the body's SHA-256) and waits a bounded time for the owner's
 * answer on a reply inbox. The owner consumes its partitions' subjects with one durable consumer
 * each, runs the delivery through its own app (verification, ingest, vault write appended to the
 * changelog) and removes the message only once that answered, overwriting it (secure delete) so
 * the body does not outlive an erasure of its entries; a 5xx (a write refused during a move,
 * storage) is redelivered.
 */
import { createHash } from "node:crypto";
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  RetentionPolicy,
} from "@nats-io/jetstream";
import { createInbox, type Subscription } from "@nats-io/transport-node";
import { Unavailable } from "../errors/domain-errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId } from "../http/request-id.ts";
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from "./forward-codec.ts";
import type { EdgeVerdict } from "./intake-edge.ts";
import { IntakeRemovals } from "./intake-removal.ts";
import type { ClusterNode } from "./node.ts";
import { partitionLabel, partitionOf } from "./partition.ts";

export const INTAKE_STREAM = "MR_INTAKE";
const INTAKE_SUBJECTS = "mr.intake.>";
const REPLY = "mr-reply";
/** Provider retries within this window are one message (JetStream deduplication). */
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;
/**
 * A delivery handed to an owner and not acknowledged within this is redelivered (an owner killed
 * mid-delivery; a slow one may run it twice, which the vault's dedupe by event id absorbs).
 */
const ACK_WAIT_NS = 10 * 1e9;
/** Deliveries of one partition run at once on its owner, at most. */
const CONCURRENT_DELIVERIES = 16;
/** Wait before a delivery answered 5xx is offered again. */
const REDELIVERY_DELAY_MS = 1000;

export const intakeSubject = (partition: number) => `mr.intake.${partitionLabel(partition)}`;
const consumerName = (partition: number) => `intake-${partitionLabel(partition)}`;

/** `POST /webhooks/{source}/{tenant_id}`: the source and tenant of an intake delivery. */
export function webhookTarget(request: Request): { source: string; tenantId: string } | undefined {
  if (request.method !== "POST") return undefined;
  const match = /^\/webhooks\/([^/]+)\/([0-9A-HJKMNP-TV-Z]{26})$/.exec(new URL(request.url).pathname);
  return match ? { source: match[1]!, tenantId: match[2]! } : undefined;
}

/**
 * Durably queued, not yet applied (see docs/cluster.md): `queued` lists the delivery's event ids
 * (empty when the receiving node left parsing to the owner).
 */
function queued(requestId: string, seq: number, ids: string[]): Response {
  return new Response(JSON.stringify({ queued: ids }), {
    status: 202,
    headers: {
      "content-type": "application/json",
      "x-request-id": requestId,
      "x-memory-intake-seq": String(seq),
    },
  });
}

/** One partition's consumption on this node. */
interface ConsumerRun {
  stopped: boolean;
  messages?: ConsumerMessages;
}

export interface IntakeOptions {
  /** How long the receiving node waits for the owner's answer before its 202. */
  answerWaitMs: number;
}

export class Intake {
  private readonly consuming = new Map<number, ConsumerRun>();
  private readonly removals: IntakeRemovals;

  constructor(
    private readonly node: ClusterNode,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** The local app (not the router): the owner runs the delivery itself. */
    private readonly app: (request: Request) => Promise<Response>,
    private readonly log: (line: string) => void,
    private readonly options: IntakeOptions = { answerWaitMs: 5000 },
    /** The receiving node's own checks (signature, event ids) before a delivery is queued. */
    private readonly edge?: (
      request: Request,
      target: { source: string; tenantId: string },
      body: Uint8Array,
    ) => Promise<EdgeVerdict>,
  ) {
    this.removals = new IntakeRemovals(jsm, INTAKE_STREAM, log);
  }

  async start(): Promise<void> {
    try {
      await this.jsm.streams.info(INTAKE_STREAM);
    } catch {
      await this.jsm.streams
        .add({
          name: INTAKE_STREAM,
          subjects: [INTAKE_SUBJECTS],
          retention: RetentionPolicy.Workqueue,
          duplicate_window: DUPLICATE_WINDOW_NS,
        })
        .catch(async (error) => {
          await this.jsm.streams.info(INTAKE_STREAM).catch(() => {
            throw error;
          });
        });
    }
  }

  /** The receiving side: durable first, then the owner's answer if it comes in time, else 202. */
  async accept(
    request: Request,
    target: { source: string; tenantId: string },
    body: Uint8Array,
  ): Promise<Response> {
    const requestId = assignRequestId(request);
    const partition = partitionOf(target.tenantId);
    const edge = this.edge ? await this.edge(request, target, body) : { kind: "owner" as const };
    if (edge.kind === "refused") return problemResponse(edge.error, requestId);
    const ids = edge.kind === "events" ? edge.ids : [];
    // Named by its event ids (a retry of one event is one message), else by the body's digest.
    const named =
      ids.length > 0 ? ids.join(",") : `sha256:${createHash("sha256").update(body).digest("hex")}`;
    const digest = named.length <= 200 ? named : `sha256:${createHash("sha256").update(named).digest("hex")}`;
    const inbox = createInbox();
    const answer = this.awaitAnswer(this.node.nc.subscribe(inbox, { max: 1 }));
    const { headers, payload } = encodeRequest(request, body);
    headers.set(REPLY, inbox);
    let seq: number;
    try {
      const ack = await this.js.publish(intakeSubject(partition), payload, {
        msgID: `${target.tenantId}:${target.source}:${digest}`,
        headers,
      });
      seq = ack.seq;
      // A retry of a delivery already in the stream: the first one's answer went to its sender.
      if (ack.duplicate) {
        answer.cancel();
        return queued(requestId, seq, ids);
      }
    } catch (error) {
      answer.cancel();
      this.log(`[cluster] intake publish failed: ${error}`);
      // A publish that timed out may still land (the server was slow, not gone): the delivery may
      // be applied later. Its retry is safe: deduplicated by Nats-Msg-Id, then by event id.
      return problemResponse(
        new Unavailable(
          "the intake stream did not confirm the delivery; retry it (a delivery that was queued after all is not applied twice)",
          2,
        ),
        requestId,
      );
    }
    return (await answer.within(this.options.answerWaitMs)) ?? queued(requestId, seq, ids);
  }

  private awaitAnswer(sub: Subscription) {
    const first = (async () => {
      for await (const msg of sub) return decodeResponse(msg);
      return undefined;
    })();
    return {
      cancel: () => sub.unsubscribe(),
      within: async (ms: number): Promise<Response | undefined> => {
        let clear = () => {};
        const timeout = new Promise<undefined>((resolve) => {
          const timer = setTimeout(resolve, ms);
          clear = () => clearTimeout(timer);
        });
        const answer = await Promise.race([first, timeout]);
        clear();
        sub.unsubscribe();
        return answer;
      },
    };
  }

  /** The owner's side: consume the partition's deliveries while it serves the partition. */
  async startPartition(partition: number): Promise<void> {
    if (this.consuming.has(partition)) return;
    // Registered before the awaits below, so a stop meanwhile is seen.
    const run: ConsumerRun = { stopped: false };
    this.consuming.set(partition, run);
    try {
      await this.consume(partition, run);
    } finally {
      // Ended by itself (an error, the subscription closing): again while the partition is ours.
      if (!run.stopped && this.consuming.get(partition) === run) {
        this.consuming.delete(partition);
        setTimeout(() => {
          if (this.node.ownership.owns(partition)) void this.startPartition(partition).catch(() => undefined);
        }, REDELIVERY_DELAY_MS);
      }
    }
  }

  private async consume(partition: number, run: ConsumerRun): Promise<void> {
    const name = consumerName(partition);
    await this.jsm.consumers
      .add(INTAKE_STREAM, {
        durable_name: name,
        filter_subject: intakeSubject(partition),
        ack_policy: AckPolicy.Explicit,
        ack_wait: ACK_WAIT_NS,
        deliver_policy: DeliverPolicy.All,
      })
      .catch(() => undefined); // exists already: its position is the partition's, kept across owners
    const consumer = await this.js.consumers.get(INTAKE_STREAM, name);
    const messages = await consumer.consume({ max_messages: 64 });
    run.messages = messages;
    if (run.stopped) {
      await messages.close();
      return;
    }
    // Deliveries run concurrently up to a bound (the tenant actor still serialises each tenant's writes).
    const running = new Set<Promise<void>>();
    for await (const msg of messages) {
      if (run.stopped) {
        msg.nak(); // the partition moved: its new owner takes the delivery at once
        break;
      }
      // Held but outside its serve window (a renewal late): offer it again shortly.
      if (!this.node.ownership.owns(partition)) {
        msg.nak(REDELIVERY_DELAY_MS);
        continue;
      }
      const done = this.run(msg).finally(() => running.delete(done));
      running.add(done);
      if (running.size >= CONCURRENT_DELIVERIES) await Promise.race(running);
    }
  }

  /**
   * One delivery through the local app; removed only once it answered below 500 (its entries
   * committed, dead-lettered or found duplicate), after the answer went to the receiving node.
   */
  private async run(msg: JsMsg): Promise<void> {
    const response = await this.app(decodeRequest(msg)).catch(() => undefined);
    if (!response || response.status >= 500) {
      msg.nak(REDELIVERY_DELAY_MS);
      return;
    }
    const reply = msg.headers?.get(REPLY);
    if (reply) {
      const encoded = await encodeResponse(response);
      this.node.nc.publish(reply, encoded.payload, { headers: encoded.headers });
    }
    // Waits only for room in the removal queue: the overwrite runs off this delivery's slot.
    await this.removals.remove(msg);
  }

  /** Resolves once the removals of the deliveries applied so far are done (an erasure waits for it). */
  removalsSettled(): Promise<void> {
    return this.removals.settled();
  }

  stopPartition(partition: number): void {
    const run = this.consuming.get(partition);
    this.consuming.delete(partition);
    if (!run) return;
    run.stopped = true;
    void run.messages?.close();
  }

  stop(): void {
    for (const partition of [...this.consuming.keys()]) this.stopPartition(partition);
  }
}
