/** The router's decisions without NATS: which tenant a request is for, and the 503 when no node serves it. */
import { describe, expect, test } from "bun:test";
import type { Msg } from "@nats-io/transport-node";
import { encodeRequest, pastDeadline, setDeadline } from "../../src/cluster/forward-codec.ts";
import type { ClusterNode } from "../../src/cluster/node.ts";
import { tenantOfRequest } from "../../src/cluster/request-tenant.ts";
import { ClusterRouter } from "../../src/cluster/router.ts";

const TENANT = "01JB3X2Z8Q6V4W7Y9T5R1N0M2K";
const OTHER = "01JB3X2Z8Q6V4W7Y9T5R1N0M2Z";

/** A bearer token whose payload claims `tenant_id` (unsigned: the router only routes on it). */
function bearer(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `Bearer ${part({ alg: "HS256" })}.${part(claims)}.c2ln`;
}

describe("the tenant a request is routed by", () => {
  test("the first tenant ULID in the path wins over the token's claim", () => {
    const request = new Request(`http://x/admin/roles/${TENANT}/reader`, {
      headers: { authorization: bearer({ tenant_id: OTHER }) },
    });
    expect(tenantOfRequest(request)).toBe(TENANT);
  });

  test("without one in the path, the token's tenant_id claim", () => {
    const request = new Request("http://x/memory/facts", {
      headers: { authorization: bearer({ tenant_id: OTHER }) },
    });
    expect(tenantOfRequest(request)).toBe(OTHER);
  });

  test("the operator's all-zeros tenant, a malformed token or none: no tenant (served locally)", () => {
    const operator = bearer({ tenant_id: "00000000000000000000000000", admin: true });
    expect(
      tenantOfRequest(new Request("http://x/admin/tenants", { headers: { authorization: operator } })),
    ).toBeUndefined();
    expect(
      tenantOfRequest(new Request("http://x/memory/facts", { headers: { authorization: "Bearer nope" } })),
    ).toBeUndefined();
    expect(tenantOfRequest(new Request("http://x/healthz"))).toBeUndefined();
  });
});

describe("a request for a partition no node serves", () => {
  const nobodyServes = {
    nodeId: "n1",
    nc: { info: { max_payload: 1024 * 1024 } },
    ownership: { owns: () => false, ownerOf: () => undefined },
  } as unknown as ClusterNode;
  const localApp = () => new Response("local", { status: 200 });
  const router = new ClusterRouter(nobodyServes, localApp, {
    ownerWaitMs: 30,
    forwardTimeoutMs: 100,
    retryAfterSeconds: 2,
  });

  test("is answered 503 problem+json with Retry-After once the bounded wait is over", async () => {
    const response = await router.handle(
      new Request(`http://x/tenants/${TENANT}/healthz`, { headers: { "x-request-id": "no-owner-1" } }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("x-request-id")).toBe("no-owner-1");
    const body = (await response.json()) as { code: string; status: number };
    expect(body).toMatchObject({ code: "unavailable", status: 503 });
  });

  test("a request with no tenant is served by the local app", async () => {
    const response = await router.handle(new Request("http://x/healthz"));
    expect(await response.text()).toBe("local");
  });
});

describe("a forwarded request that reaches its owner after its sender gave up", () => {
  /** An owner of every partition whose NATS subscription the test drives by hand. */
  function owner(now: () => number) {
    let deliver: ((error: Error | null, msg: Msg) => void) | undefined;
    const node = {
      nodeId: "owner",
      nc: {
        info: { max_payload: 1024 * 1024 },
        subscribe: (_subject: string, opts: { callback: (error: Error | null, msg: Msg) => void }) => {
          deliver = opts.callback;
          return { unsubscribe() {} };
        },
      },
      ownership: { owns: () => true, ownerOf: () => "owner", epochOf: () => 7 },
    } as unknown as ClusterNode;
    const ran: string[] = [];
    const router = new ClusterRouter(
      node,
      async (request) => {
        ran.push(await request.text());
        return new Response("done", { status: 201 });
      },
      { ownerWaitMs: 30, forwardTimeoutMs: 10_000, retryAfterSeconds: 2, now },
    );
    router.listen();
    /** Delivers a write sent at `sentAt`; resolves with the answers it got. */
    const forward = async (content: string, sentAt: number) => {
      const request = new Request(`http://x/tenants/${TENANT}/healthz`, { method: "POST", body: content });
      const message = setDeadline(encodeRequest(request, new TextEncoder().encode(content)), sentAt + 10_000);
      const answers: Uint8Array[] = [];
      const settled = Promise.withResolvers<void>();
      deliver!(null, {
        data: message.payload,
        headers: message.headers,
        respond: (data: Uint8Array) => {
          answers.push(data);
          settled.resolve();
          return true;
        },
      } as unknown as Msg);
      return { answers, settled: settled.promise };
    };
    return { ran, forward };
  }

  test("within its deadline it runs and is answered; past it, it runs nothing and is not answered", async () => {
    let now = 1_000_000;
    const { ran, forward } = owner(() => now);
    const onTime = await forward("on time", now - 9_999);
    await onTime.settled;
    expect(ran).toEqual(["on time"]);
    expect(onTime.answers).toHaveLength(1);

    const late = await forward("too late", now - 10_001);
    // Nothing is scheduled for a late request: had it run, the app's record would show it by the
    // time a later request on time was answered.
    now += 1;
    const after = await forward("after", now);
    await after.settled;
    expect(ran).toEqual(["on time", "after"]);
    expect(late.answers).toEqual([]);
  });

  test("a request without a deadline (an older node's) is on time, and so is one at its deadline", async () => {
    const message = encodeRequest(new Request(`http://x/tenants/${TENANT}/healthz`), new Uint8Array());
    expect(pastDeadline(message, Date.now())).toBe(false);
    expect(pastDeadline(setDeadline(message, 5), 6)).toBe(true);
    expect(pastDeadline(setDeadline(message, 5), 5)).toBe(false);
  });
});
