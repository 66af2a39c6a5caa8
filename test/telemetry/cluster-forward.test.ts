/**
 * Trace context across cluster forwarding (issue 22, item 2): a request reaching a node that does
 * not own its tenant is forwarded over NATS (a real server on 127.0.0.1) in a `cluster.forward`
 * span, whose `traceparent` the owner receives in the forwarded request, so the owner's request span
 * is its child, in the client's trace. Two routers in one process: the forwarding one owns nothing,
 * the owner serves every partition with a runtime of its own.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { ClusterNode } from "../../src/cluster/node.ts";
import { ClusterRouter, DEFAULT_ROUTER_OPTIONS } from "../../src/cluster/router.ts";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.ts";
import { telemetrySettingsOf } from "../../src/telemetry/telemetry-settings.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";
import { OtlpReceiver } from "./otlp-receiver.ts";
import { nextTurn, Scrape } from "./scrape.ts";

let nats: NatsServer;
let connections: NatsConnection[] = [];
let otlp: OtlpReceiver;
let owner: Harness;
let forwarderTelemetry: Telemetry;
let routers: ClusterRouter[] = [];
let forwarder: ClusterRouter;

/** A node for a router: its id, its NATS connection and what it owns (everything or nothing). */
function node(nodeId: string, nc: NatsConnection, ownsAll: boolean): ClusterNode {
  return {
    nodeId,
    nc,
    ownership: { owns: () => ownsAll, ownerOf: () => "owner", epochOf: () => 1 },
  } as unknown as ClusterNode;
}

const tracingEnv = (service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
  OTEL_SERVICE_NAME: service,
  OTEL_BSP_SCHEDULE_DELAY: "600000",
});

beforeAll(async () => {
  nats = await startNatsServer();
  connections = [await connect({ servers: nats.url }), await connect({ servers: nats.url })];
  otlp = await OtlpReceiver.start();
  owner = await startHarness({ env: tracingEnv("owner-node") });
  forwarderTelemetry = createTelemetry(
    telemetrySettingsOf({ ...tracingEnv("forwarding-node"), MEMORY_RUNTIME_LOG: "off" }, "test"),
  );
  const serving = new ClusterRouter(node("owner", connections[0]!, true), (r) => owner.app.handle(r));
  serving.listen();
  forwarder = new ClusterRouter(
    node("forwarder", connections[1]!, false),
    () => new Response("not here", { status: 500 }),
    {
      ...DEFAULT_ROUTER_OPTIONS,
      telemetry: forwarderTelemetry,
    },
  );
  routers = [serving, forwarder];
}, 30_000);

afterAll(async () => {
  for (const router of routers) router.stop();
  await forwarderTelemetry?.shutdown();
  await owner?.close();
  for (const nc of connections) await nc.close();
  await nats?.stop();
  await otlp?.stop();
});

test("the owner's request span is the child of the forwarding node's cluster.forward span, in the client's trace", async () => {
  const tenant = await owner.createTenant();
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const clientSpan = "00f067aa0ba902b7";
  const answer = await forwarder.handle(
    new Request(`http://node.internal/tenants/${tenant.tenant_id}/healthz`, {
      headers: { authorization: `Bearer ${tenant.token}`, traceparent: `00-${traceId}-${clientSpan}-01` },
    }),
  );
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { tenant_id: string }).tenant_id).toBe(tenant.tenant_id);
  await nextTurn();
  await forwarderTelemetry.flush();
  await owner.runtime.stores.telemetry.flush();

  const hop = otlp.one("cluster.forward", traceId);
  expect(hop.parentSpanId).toBe(clientSpan);
  expect(hop.resource["service.name"]).toBe("forwarding-node");
  const served = otlp.one("GET /tenants/{tenant_id}/healthz", traceId);
  expect(served.parentSpanId).toBe(hop.spanId);
  expect(served.resource["service.name"]).toBe("owner-node");
  expect(otlp.childrenOf(served).map((s) => s.name)).toContain("tenant tenant.health");

  // The hop is timed on the forwarding node, where the owner's request metrics are not.
  const scrape = await Scrape.of(await forwarderTelemetry.scrape());
  expect(scrape.value("memory_runtime_cluster_forward_seconds", { outcome: "ok" })).toBe(1);
});
