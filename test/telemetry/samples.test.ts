/** Figures read at scrape time: connector states counted without tenant ids, sources replaced and removed. */
import { expect, test } from "bun:test";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { telemetrySettingsOf } from "../../src/telemetry/telemetry-settings.ts";
import { Scrape } from "./scrape.ts";

const TENANTS = ["01JB3X2Z8Q6V4W7Y9T5R1N0M2A", "01JB3X2Z8Q6V4W7Y9T5R1N0M2B", "01JB3X2Z8Q6V4W7Y9T5R1N0M2C"];
const fresh = () => createTelemetry(telemetrySettingsOf({ MEMORY_RUNTIME_LOG: "off" }, "test"));

test("connectors are counted by connector and state; a stopped one is forgotten; no tenant id shows", async () => {
  const telemetry = fresh();
  telemetry.connectorState("crm-stream", TENANTS[0]!, "connecting");
  telemetry.connectorState("crm-stream", TENANTS[0]!, "connected");
  telemetry.connectorState("crm-stream", TENANTS[1]!, "connected");
  telemetry.connectorState("crm-stream", TENANTS[2]!, "backoff");
  telemetry.connectorState("mail-watch", TENANTS[0]!, "active");
  telemetry.connectorState("mail-watch", TENANTS[1]!, "active");
  telemetry.connectorState("mail-watch", TENANTS[1]!, "stopped");
  const text = await telemetry.scrape();
  const scrape = await Scrape.of(text);
  expect(
    scrape.samples("memory_runtime_connectors").map((s) => [s.labels.connector, s.labels.state, s.value]),
  ).toEqual([
    ["crm-stream", "connected", 2],
    ["crm-stream", "backoff", 1],
    ["mail-watch", "active", 1],
  ]);
  for (const tenant of TENANTS) expect(text).not.toContain(tenant);
});

test("a source registered again under its key replaces the old one; its remover removes only itself", async () => {
  const telemetry = fresh();
  const removeOld = telemetry.sample("outbound:a", () => [{ metric: "outboundQueued", value: 5 }]);
  telemetry.sample("outbound:b", () => [{ metric: "outboundQueued", value: 2 }]);
  telemetry.sample("outbound:a", () => [{ metric: "outboundQueued", value: 1 }]);
  removeOld();
  const scrape = await Scrape.of(await telemetry.scrape());
  expect(scrape.value("memory_runtime_outbound_queued_events")).toBe(3);
});
