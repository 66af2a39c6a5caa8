/**
 * Real processes on loopback (one nats-server, two runtime nodes): an answer over one NATS message
 * (`max_payload`, 1 MiB) comes back from the owner in parts, and the non-owner answers it as the
 * owner does — same status, headers and body.
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
import { adminTokenFor } from "../helpers/server-process.ts";

const SECRET = "cluster-large-answers-secret-of-32-bytes-at-least";
const ENTRIES = 500;

let cluster: TestCluster;
let token: string;
let owner: ClusterNodeProcess;
let other: ClusterNodeProcess;

/** Status, headers (but the date, which is each node's own) and body of one answer. */
async function snapshotOf(response: Response) {
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, name) => {
    if (name !== "date") headers.push([name, value]);
  });
  return { status: response.status, headers: headers.sort(), body: await response.text() };
}

describe("cluster: a forwarded answer over one NATS message (2 nodes)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["a1", "a2"], SECRET);
    const admin = await adminTokenFor(cluster.secret);
    await waitForSettled(cluster.nodes);
    ({ token, owner, other } = await createPlacedTenant(cluster, admin, "Large Answers Co"));
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  test("500 entries of ~2 KB listed through the non-owner: 200 with all 500, as the owner answers", async () => {
    const entries = Array.from({ length: ENTRIES }, (_, i) => ({
      content: `Large answer entry ${String(i).padStart(3, "0")} ${"y".repeat(2000)}`,
    }));
    // Written at the owner: this suite is about the answer (bodies: large-bodies.test.ts).
    const written = await fetch(`${owner.server.base}/memory/facts/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ entries }),
    });
    expect(written.status).toBe(201);
    const ids = ((await written.json()) as { entries: Array<{ id: string }> }).entries.map((e) => e.id);

    const path = `/memory/facts?limit=${ENTRIES}`;
    const list = (base: string) =>
      fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${token}`, "x-request-id": "large-answer-1" },
      });
    const forwarded = await list(other.server.base);
    const doc = (await (await fetch(`${other.server.base}/openapi/json`)).json()) as Record<string, unknown>;
    expect(
      await checkerFromDocument(doc).problems("GET", path, forwarded.clone() as unknown as Response),
    ).toEqual([]);
    const viaOther = await snapshotOf(forwarded);
    const viaOwner = await snapshotOf(await list(owner.server.base));

    expect(viaOther.status).toBe(200);
    // Over one NATS message (1 MiB): this answer needed the parts.
    expect(viaOther.body.length).toBeGreaterThan(1024 * 1024);
    const items = (JSON.parse(viaOther.body) as { items: Array<{ id: string }> }).items;
    expect(items.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(viaOther).toEqual(viaOwner);
  }, 60_000);
});
