/**
 * Real processes on loopback (one nats-server, two runtime nodes): what NATS request/reply cannot
 * carry — the live entry stream, a reply that never ends — a non-owner answers 307 to the owner's
 * advertised URL, path and query kept, and following it is served by the owner. (Bodies over one
 * message are forwarded in parts: large-bodies.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type ClusterNodeProcess,
  createPlacedTenant,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { checkerFromDocument } from "../helpers/openapi-conformance.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-redirect-secret-of-at-least-32-bytes!";
interface Setup {
  cluster: TestCluster;
  token: string;
  owner: ClusterNodeProcess;
  other: ClusterNodeProcess;
}

/** Two nodes, one tenant, which of them owns it and which does not. */
async function setUp(): Promise<Setup> {
  const cluster = await startTestCluster(["r1", "r2"], SECRET);
  const admin = await adminTokenFor(cluster.secret);
  await waitForSettled(cluster.nodes);
  const { token, owner, other } = await createPlacedTenant(cluster, admin, "Redirect Co");
  return { cluster, token, owner, other };
}

async function conformance(base: string, method: string, path: string, response: Response) {
  const doc = (await (await fetch(`${base}/openapi/json`)).json()) as Record<string, unknown>;
  return checkerFromDocument(doc).problems(method, path, response.clone() as unknown as Response);
}

/** Reads the event stream until it holds `needle` (bounded by the fetch's abort signal). */
async function readUntil(body: ReadableStream<Uint8Array>, needle: string): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(needle)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe("cluster: the live stream through a non-owner (2 nodes)", () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await setUp();
  }, 60_000);
  afterAll(async () => {
    await setup.cluster.stop();
  });

  test("the stream: 307 to the owner's URL with path and query; following it streams entries", async () => {
    const path = "/memory/stream?categories=fact";
    const auth = { authorization: `Bearer ${setup.token}` };
    const redirected = await fetch(`${setup.other.server.base}${path}`, {
      headers: auth,
      redirect: "manual",
    });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get("location")).toBe(`${setup.owner.server.base}${path}`);
    expect(await conformance(setup.other.server.base, "GET", "/memory/stream", redirected)).toEqual([]);

    const stream = await fetch(redirected.headers.get("location")!, {
      headers: auth,
      signal: AbortSignal.timeout(15_000),
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
    // Written through the non-owner (forwarded): the owner's stream carries it.
    const written = await httpCall(setup.other.server.base, "POST", "/memory/facts", {
      token: setup.token,
      body: { content: "Streamed after a redirect" },
    });
    expect(written.status).toBe(201);
    const events = await readUntil(stream.body!, written.body.id);
    expect(events).toContain(written.body.id);
    expect(events).toContain("Streamed after a redirect");
  }, 30_000);
});
