/** Connector calls (src/telemetry/traced-fetch.ts): timed by connector and outcome, traced, no trace context to the platform. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.ts";
import { telemetrySettingsOf } from "../../src/telemetry/telemetry-settings.ts";
import { tracedFetch } from "../../src/telemetry/traced-fetch.ts";
import { Receiver } from "../outbound/receiver.ts";
import { OtlpReceiver } from "./otlp-receiver.ts";
import { Scrape } from "./scrape.ts";

let otlp: OtlpReceiver;
let platform: Receiver;
let telemetry: Telemetry;

beforeAll(async () => {
  otlp = await OtlpReceiver.start();
  platform = await Receiver.start();
  platform.respond = (index) => (index === 0 ? 200 : 503);
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: "600000" };
  telemetry = createTelemetry(telemetrySettingsOf(env, "test"));
});
afterAll(async () => {
  await telemetry.shutdown();
  await otlp.stop();
  await platform.stop();
});

test("each call is a client span and an observation; a non-2xx is its failure; the platform gets no traceparent", async () => {
  const fetchIt = tracedFetch(fetch, telemetry, "crm-stream");
  expect((await fetchIt(platform.url("/services/oauth2/token"), { method: "POST" })).status).toBe(200);
  expect((await fetchIt(platform.url("/services/data"))).status).toBe(503);
  await telemetry.flush();
  const spans = otlp.spans().filter((s) => s.name === "connector crm-stream");
  expect(spans.map((s) => [s.kind, s.status?.code ?? 0])).toEqual([
    [3, 0],
    [3, 2],
  ]);
  expect(platform.received.map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);
  const scrape = await Scrape.of(await telemetry.scrape());
  expect(
    scrape.value("memory_runtime_connector_call_seconds", { connector: "crm-stream", outcome: "ok" }),
  ).toBe(1);
  expect(
    scrape.value("memory_runtime_connector_call_seconds", { connector: "crm-stream", outcome: "error" }),
  ).toBe(1);
});

test("without telemetry the fetch is the platform's own", () => {
  expect(tracedFetch(fetch, undefined, "mail-watch")).toBe(fetch);
});
