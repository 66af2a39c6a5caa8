/**
 * A read that ran on a node while its partition left (src/cluster/router.ts `serveOwned`): its
 * answer may come from the copy being removed (src/cluster/local-copies.ts), or from none, so it is
 * not returned; the read is asked again of the next owner (503 with Retry-After when there is none
 * within the bounded wait). A write keeps its answer: the changelog fenced it, or it was appended.
 */
import { describe, expect, test } from "bun:test";
import type { ClusterNode } from "../../src/cluster/node.ts";
import { ClusterRouter } from "../../src/cluster/router.ts";

const TENANT = "01JB3X2Z8Q6V4W7Y9T5R1N0M2K";
const OPTIONS = { ownerWaitMs: 30, forwardTimeoutMs: 100, retryAfterSeconds: 2 };

/** A node serving the tenant's partition under `epoch` (undefined: not served, and nobody else does). */
function nodeWith(state: { epoch: number | undefined }): ClusterNode {
  return {
    nodeId: "n1",
    nc: { info: { max_payload: 1024 * 1024 } },
    ownership: {
      owns: () => state.epoch !== undefined,
      epochOf: () => state.epoch,
      ownerOf: () => (state.epoch === undefined ? undefined : "n1"),
    },
  } as unknown as ClusterNode;
}

const read = () => new Request("http://x/memory/facts", { headers: { authorization: bearerOf(TENANT) } });

function bearerOf(tenantId: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `Bearer ${part({ alg: "HS256" })}.${part({ tenant_id: tenantId })}.c2ln`;
}

describe("a request during which its partition left this node", () => {
  test("a read is not answered from here: 503 when no node serves the partition yet", async () => {
    const state = { epoch: 7 as number | undefined };
    const app = () => {
      state.epoch = undefined; // dropped while the app read the vault
      return new Response("from a copy being removed", { status: 200 });
    };
    const response = await new ClusterRouter(nodeWith(state), app, OPTIONS).handle(read());
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
  });

  test("a read is asked again of the owner: here again after a new claim, the new copy answers", async () => {
    const state = { epoch: 7 as number | undefined };
    let calls = 0;
    const app = () => {
      calls++;
      if (calls === 1) state.epoch = 8; // dropped and claimed again meanwhile: a new copy
      return new Response(calls === 1 ? "old copy" : "new copy", { status: 200 });
    };
    const response = await new ClusterRouter(nodeWith(state), app, OPTIONS).handle(read());
    expect(await response.text()).toBe("new copy");
    expect(calls).toBe(2);
  });

  test("a write keeps its answer, and a read while the partition stays is answered once", async () => {
    const state = { epoch: 7 as number | undefined };
    const moving = () => {
      state.epoch = undefined;
      return new Response("fenced", { status: 503 });
    };
    const write = new Request("http://x/memory/facts", {
      method: "POST",
      headers: { authorization: bearerOf(TENANT), "content-type": "application/json" },
      body: "{}",
    });
    expect(await (await new ClusterRouter(nodeWith(state), moving, OPTIONS).handle(write)).text()).toBe(
      "fenced",
    );
    const staying = { epoch: 7 as number | undefined };
    const answered = await new ClusterRouter(nodeWith(staying), () => new Response("here"), OPTIONS).handle(
      read(),
    );
    expect(await answered.text()).toBe("here");
  });
});
