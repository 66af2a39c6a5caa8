import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";
import { ROOT, run } from "./helpers/spawn.ts";

/**
 * The signing example (docs/examples/sign-standard-webhook.sh, which the README's walkthrough and
 * docs/webhooks.md call) signs a `standard` webhook with openssl and posts it with curl: run as
 * written against a real server.
 */
const SECRET = "readme-example-secret-at-least-32-bytes-long";
const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const dataDir = mkdtempSync(join(tmpdir(), "mrt-readme-"));
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(dataDir, { recursive: true, force: true });
});

test("the openssl + curl example delivers a standard webhook into memory", async () => {
  const first = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label: "setup" });
  servers.push(first);
  const created = await httpCall(first.base, "POST", "/admin/tenants", {
    token: await adminTokenFor(SECRET),
    body: { name: "Readme Co" },
  });
  const { tenant_id: tenantId, token } = created.body;
  first.proc.kill("SIGTERM");
  await first.proc.exited;
  const server = await startServerProcess({
    dataDir,
    secret: SECRET,
    logDir: dataDir,
    label: "example",
    env: { [`STANDARD_WEBHOOK_SECRET_${tenantId}`]: WEBHOOK_SECRET },
  });
  servers.push(server);

  const done = await run(["bash", join(ROOT, "docs/examples/sign-standard-webhook.sh")], {
    PATH: process.env.PATH ?? "",
    TENANT: tenantId,
    STANDARD_WEBHOOK_SECRET: WEBHOOK_SECRET,
    BASE: server.base,
  });
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const summary = JSON.parse(done.stdout);
  expect(summary).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [], ignored: 0 });
  // invoice.completed has no decision to resolve: a fact tagged outcome.
  const entry = await httpCall(server.base, "GET", `/memory/facts/${summary.entries[0]}`, { token });
  expect(entry.body).toMatchObject({ source: { system: "standard", event_type: "invoice.completed" } });
  expect(entry.body.tags).toContain("outcome");
}, 30_000);
