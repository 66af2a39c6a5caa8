/**
 * Real processes on loopback (one nats-server, two runtime nodes): a request body over one NATS
 * message is forwarded by a non-owner, the owner pulling its parts as its app reads them
 * (src/cluster/forward-body.ts), so the non-owner answers exactly as the owner does: the write
 * lands, and an over-limit body gets the owner's own 413. Hostile part sequences sent straight to
 * the owner's subject (missing, out of order, repeated, refused, over the cap) get a clear 400 or
 * 503, never a hang or a 500.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type Msg, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { BODY_SUBJECT } from "../../src/cluster/forward-body.ts";
import { decodeResponse, encodeRequest } from "../../src/cluster/forward-codec.ts";
import { INTAKE_STREAM } from "../../src/cluster/intake.ts";
import { httpSubject } from "../../src/cluster/names.ts";
import { MAX_PULLED_BODIES } from "../../src/cluster/router.ts";
import { NDJSON } from "../../src/http/ndjson.ts";
import { catalogAuditRow } from "../fakes/data-events.ts";
import {
  type ClusterNodeProcess,
  createPlacedTenant,
  createTenantOwnedBy,
  placementOf,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { checkerFromDocument } from "../helpers/openapi-conformance.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-large-bodies-secret-of-32-bytes-at-least";
const MiB = 1024 * 1024;

let cluster: TestCluster;
let nc: NatsConnection;
let token: string;
let tenantId: string;
let owner: ClusterNodeProcess;
let other: ClusterNodeProcess;

/** Status, media type and body of an answer (both nodes are sent the same X-Request-Id). */
async function answerOf(response: Response) {
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), body: text };
}

function post(base: string, path: string, body: string | ReadableStream<Uint8Array>, requestId: string) {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
    body,
  });
}

/** `text` as a body sent chunked (no Content-Length), 64 KiB at a time. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
      offset += 64 * 1024;
    },
  });
}

async function conforms(method: string, path: string, response: Response) {
  const doc = (await (await fetch(`${other.server.base}/openapi/json`)).json()) as Record<string, unknown>;
  return checkerFromDocument(doc).problems(method, path, response.clone() as unknown as Response);
}

describe("cluster: request bodies over one NATS message through a non-owner (2 nodes)", () => {
  beforeAll(async () => {
    // The rate limiter would refuse the hostile bursts below before their bodies are read.
    cluster = await startTestCluster(["b1", "b2"], SECRET, { MEMORY_RUNTIME_RATE_LIMITS: "off" });
    nc = await connect({ servers: cluster.nats.url });
    const admin = await adminTokenFor(cluster.secret);
    await waitForSettled(cluster.nodes);
    ({ id: tenantId, token, owner, other } = await createPlacedTenant(cluster, admin, "Large Bodies Co"));
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster.stop();
  });

  test("a ~1 MiB body on a single-entry route (sent with a length, then chunked): 201 through the non-owner", async () => {
    // Whitespace is JSON: the body is just under the 1 MiB limit, over one NATS message.
    const body = (tag: string) => `{"content": "A large single write (${tag})"}${" ".repeat(MiB - 100)}`;
    expect(body("x").length).toBeGreaterThan(1000 * 1024);
    const declared = await post(other.server.base, "/memory/facts", body("declared"), "lb-1");
    expect(declared.status).toBe(201);
    expect(await conforms("POST", "/memory/facts", declared)).toEqual([]);
    const viaStream = await post(other.server.base, "/memory/facts", chunked(body("chunked")), "lb-2");
    expect(viaStream.status).toBe(201);
    const listed = await httpCall(owner.server.base, "GET", "/memory/facts?limit=10", { token });
    const contents = (listed.body.items as Array<{ content: string }>).map((e) => e.content);
    expect(contents).toContain("A large single write (declared)");
    expect(contents).toContain("A large single write (chunked)");
  }, 30_000);

  test("over the route's limit: the non-owner answers the owner's own 413, declared or chunked", async () => {
    const body = `{"content": "too large"}${" ".repeat(MiB + 512 * 1024)}`;
    for (const [send, id] of [
      [() => body, "lb-413-declared"],
      [() => chunked(body), "lb-413-chunked"],
    ] as const) {
      const viaOther = await post(other.server.base, "/memory/facts", send(), id);
      const viaOwner = await post(owner.server.base, "/memory/facts", send(), id);
      expect(viaOther.status).toBe(413);
      expect(await conforms("POST", "/memory/facts", viaOther)).toEqual([]);
      expect(await answerOf(viaOther)).toEqual(await answerOf(viaOwner));
    }
    // A batch's limit is 16x: 17 MiB is over it, refused from its declared length before any part moves.
    const batch = `{"entries": [{"content": "x"}]}${" ".repeat(17 * MiB)}`;
    const viaOther = await post(other.server.base, "/memory/facts/batch", batch, "lb-413-batch");
    const viaOwner = await post(owner.server.base, "/memory/facts/batch", batch, "lb-413-batch");
    expect(viaOther.status).toBe(413);
    expect(await answerOf(viaOther)).toEqual(await answerOf(viaOwner));
  }, 30_000);

  test("a webhook delivery over one intake message: forwarded to the owner, applied and answered there", async () => {
    const admin = await adminTokenFor(cluster.secret);
    const webhookToken = `data-${crypto.randomUUID()}`;
    await cluster.setSecrets(tenantId, { DATA_WEBHOOK_TOKEN: webhookToken }, admin);
    const intakeBefore = (await (await jetstreamManager(nc)).streams.info(INTAKE_STREAM)).state.last_seq;
    const row = catalogAuditRow(`catalog-large-${crypto.randomUUID()}`);
    // Whitespace is JSON: over one NATS message (960 KiB), under the 1 MiB webhook limit.
    const body = `${JSON.stringify(row)}${" ".repeat(MiB - 4096)}`;
    expect(body.length).toBeGreaterThan(960 * 1024);
    const delivery = await fetch(`${other.server.base}/webhooks/data/${tenantId}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${webhookToken}` },
      body,
    });
    expect(delivery.status).toBe(200);
    expect(await conforms("POST", `/webhooks/data/${tenantId}`, delivery)).toEqual([]);
    const answer = (await delivery.json()) as { accepted: number; entries: string[] };
    expect(answer.accepted).toBe(1);
    expect(answer.entries).toHaveLength(1);
    // Applied by the owner before the answer; never queued on the intake stream.
    const listed = await httpCall(owner.server.base, "GET", "/memory/facts?limit=50", { token });
    const sources = (listed.body.items as Array<{ source?: { event_id?: string } }>).map(
      (e) => e.source?.event_id,
    );
    expect(sources).toContain(row.event_id);
    expect((await (await jetstreamManager(nc)).streams.info(INTAKE_STREAM)).state.last_seq).toBe(
      intakeBefore,
    );
    // Over the webhook limit (1 MiB): the owner's own 413, at either node.
    const tooLarge = `${JSON.stringify(row)}${" ".repeat(MiB + 8192)}`;
    const refusals = await Promise.all(
      [other, owner].map((node) =>
        fetch(`${node.server.base}/webhooks/data/${tenantId}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${webhookToken}`,
            "x-request-id": "lb-webhook-413",
          },
          body: tooLarge,
        }),
      ),
    );
    expect(refusals.map((r) => r.status)).toEqual([413, 413]);
    const [viaOther, viaOwner] = await Promise.all(refusals.map(answerOf));
    expect(viaOther).toEqual(viaOwner!);
  }, 30_000);

  test("a ~1.5 MiB import through the non-owner: 200, all 700 entries imported and served", async () => {
    const admin = await adminTokenFor(cluster.secret);
    const source = await httpCall(owner.server.base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Import Source Co" },
    });
    const entries = Array.from({ length: 700 }, (_, i) => ({
      content: `Imported entry ${String(i).padStart(3, "0")} ${"z".repeat(2000)}`,
    }));
    const wrote = await httpCall(owner.server.base, "POST", "/memory/facts/batch", {
      token: source.body.token,
      body: { entries },
    });
    expect(wrote.status).toBe(201);
    const exported = await fetch(`${owner.server.base}/admin/tenants/${source.body.tenant_id}/export`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const ndjson = await exported.text();
    expect(ndjson.length).toBeGreaterThan(1.4 * MiB);
    // An empty tenant of the owner's, the import sent to the other node.
    const target = await createTenantOwnedBy(
      cluster,
      owner.nodeId,
      other.server.base,
      admin,
      "Import Target",
    );
    const path = `/admin/tenants/${target.id}/import`;
    const imported = await fetch(`${other.server.base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": NDJSON },
      body: ndjson,
    });
    expect(await conforms("POST", path, imported)).toEqual([]);
    expect(imported.status).toBe(200);
    expect(((await imported.json()) as { imported: { entries: number } }).imported.entries).toBe(700);
    const listed = await httpCall(other.server.base, "GET", "/memory/facts?limit=500", {
      token: target.token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(500);
    expect(listed.body.next_cursor).not.toBeNull();
  }, 60_000);

  test("a 2 MiB batch through the non-owner: 201 with every entry, which a takeover keeps", async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      content: `Batch entry ${String(i).padStart(4, "0")} ${"x".repeat(2100)}`,
    }));
    const body = JSON.stringify({ entries });
    expect(body.length).toBeGreaterThan(2 * MiB);
    const written = await post(other.server.base, "/memory/facts/batch", body, "lb-batch");
    expect(written.status).toBe(201);
    expect(await conforms("POST", "/memory/facts/batch", written)).toEqual([]);
    const ids = ((await written.json()) as { entries: Array<{ id: string }> }).entries
      .map((e) => e.id)
      .sort();
    expect(ids).toHaveLength(1000);
    // Every entry of the batch, listed through the non-owner; [] while no node answers.
    const listBatch = async () => {
      const listed: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const answer = await httpCall(other.server.base, "GET", `/memory/facts?limit=500${query}`, { token });
        if (answer.status !== 200) return [];
        for (const item of answer.body.items as Array<{ id: string; content: string }>)
          if (item.content.startsWith("Batch entry")) listed.push(item.id);
        cursor = answer.body.next_cursor;
        if (!cursor) break;
      }
      return listed.sort();
    };
    expect(await listBatch()).toEqual(ids);
    // The survivor's takeover replays the write set (in parts on the log) once.
    await killHard(owner.server);
    const afterTakeover = await pollUntil(listBatch, (listed) => listed.length > 0, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    expect(afterTakeover).toEqual(ids);
    // The killed node back, for the suite's other tests (in any order): owner and non-owner anew.
    await cluster.startNode(owner.nodeId);
    await waitForSettled(cluster.nodes);
    ({ owner, other } = await placementOf(cluster, tenantId));
  }, 60_000);
});

/**
 * Hostile part sequences, sent to the owner's subject as a forwarding node would (the header part
 * naming a body subject this test answers); each answer is the owner's problem document.
 */
describe("cluster: hostile body parts at the owner (2 nodes)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["h1", "h2"], SECRET, { MEMORY_RUNTIME_RATE_LIMITS: "off" });
    nc = await connect({ servers: cluster.nats.url });
    const admin = await adminTokenFor(cluster.secret);
    await waitForSettled(cluster.nodes);
    ({ token, owner } = await createPlacedTenant(cluster, admin, "Hostile Parts Co"));
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster.stop();
  });

  /** Sends a write whose body the owner must pull from `bodySubject`; resolves with its answer. */
  async function headerPart(bodySubject: string): Promise<{ status: number; body: { detail: string } }> {
    const request = new Request("http://cluster.test/memory/facts", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    });
    const { headers, payload } = encodeRequest(request, new Uint8Array());
    headers.set(BODY_SUBJECT, bodySubject);
    const reply = await nc.request(httpSubject(owner.nodeId), payload, { headers, timeout: 30_000 });
    const response = decodeResponse(reply);
    return { status: response.status, body: (await response.json()) as { detail: string } };
  }

  /** Answers the owner's pulls on a fresh subject with `answer(pull, index of the pull)`. */
  function bodySource(answer: (pull: Msg, n: number) => void) {
    const subject = `test.body.${crypto.randomUUID()}`;
    let n = 0;
    const subscription = nc.subscribe(subject, { callback: (_error, pull) => answer(pull, n++) });
    return { subject, pulls: () => n, stop: () => subscription.unsubscribe() };
  }

  const part = (index: string, data: string, last = false) => {
    const h = natsHeaders();
    h.set("mr-part", index);
    if (last) h.set("mr-last", "1");
    return { data: new TextEncoder().encode(data), headers: h };
  };

  test("in order, in parts: the owner's app gets the whole body (201)", async () => {
    const text = JSON.stringify({ content: "Pulled in three parts" });
    const pieces = [text.slice(0, 10), text.slice(10, 20), text.slice(20)];
    const source = bodySource((pull, n) => {
      const p = part(String(n), pieces[n]!, n === 2);
      pull.respond(p.data, { headers: p.headers });
    });
    const answer = await headerPart(source.subject);
    source.stop();
    expect(answer.status).toBe(201);
    expect(source.pulls()).toBe(3);
  });

  test("a part out of order, a part repeated, a part refused: 400 naming it", async () => {
    const cases: Array<[string, (pull: Msg, n: number) => void, string]> = [
      [
        "out of order",
        (pull) => pull.respond(part("1", "{").data, { headers: part("1", "{").headers }),
        "part 1 arrived where part 0 was due",
      ],
      [
        "repeated",
        (pull) => pull.respond(part("0", "{").data, { headers: part("0", "{").headers }),
        "part 0 arrived where part 1 was due",
      ],
      [
        "refused",
        (pull) => {
          const h = natsHeaders();
          h.set("mr-part-error", "the client's body could not be read");
          pull.respond(new Uint8Array(), { headers: h });
        },
        "the forwarded body is incomplete",
      ],
    ];
    for (const [name, answer, detail] of cases) {
      const source = bodySource(answer);
      const reply = await headerPart(source.subject);
      source.stop();
      expect({ name, status: reply.status }).toEqual({ name, status: 400 });
      expect(reply.body.detail).toContain(detail);
    }
  });

  test("over the cap of bodies pulled at once: 503 at once; the stalled ones end when their parts fail", async () => {
    const stalled: Msg[] = [];
    const source = bodySource((pull) => stalled.push(pull));
    const held = Array.from({ length: MAX_PULLED_BODIES }, () => headerPart(source.subject));
    await pollUntil(
      () => stalled.length,
      (n) => n === MAX_PULLED_BODIES,
      { timeoutMs: 10_000 },
    );
    const refused = await headerPart(source.subject);
    expect(refused.status).toBe(503);
    expect(refused.body.detail).toContain("too many forwarded request bodies");
    for (const pull of stalled) {
      const h = natsHeaders();
      h.set("mr-part-error", "gave up");
      pull.respond(new Uint8Array(), { headers: h });
    }
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(400);
    source.stop();
  }, 30_000);

  test("a part that never comes: 503 after the part timeout, and none when nobody serves the body", async () => {
    const silent = bodySource(() => {});
    const noResponders = headerPart(`test.nobody.${crypto.randomUUID()}`);
    const missing = await headerPart(silent.subject);
    silent.stop();
    expect(missing.status).toBe(503);
    expect(missing.body.detail).toContain("part 0 of the forwarded body did not arrive");
    expect((await noResponders).status).toBe(503);
  }, 30_000);
});
