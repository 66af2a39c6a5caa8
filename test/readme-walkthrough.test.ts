import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDotenv } from "../src/secrets/secrets-file.ts";
import { jsonValues } from "./helpers/markdown.ts";
import { httpCall, killHard, type ServerProcess } from "./helpers/server-process.ts";
import { cleanEnv, run } from "./helpers/spawn.ts";
import {
  startWalkthroughServer,
  WALKTHROUGH_ADDRESS,
  WALKTHROUGH_SECRETS_PATH,
  walkthroughScript,
} from "./helpers/walkthrough.ts";

/**
 * The README's walkthrough runs as written: its shell blocks, in order, in one bash, against a real
 * server on a free port whose secrets file is the walkthrough's `.secrets/tenants.env`. Two strings
 * are swapped for the test's own (and must be there to be swapped): the service's address and the
 * secrets file's path. The admin token comes from the walkthrough's own `bun run mint-token --admin`,
 * given the server's secret as `MEMORY_RUNTIME_JWT_SECRET` (which the script prefers to the file).
 */
const SECRET = "readme-walkthrough-secret-at-least-32-bytes";
const ADDRESS = WALKTHROUGH_ADDRESS;
const SECRETS_PATH = WALKTHROUGH_SECRETS_PATH;
const dir = mkdtempSync(join(tmpdir(), "mrt-walkthrough-"));
let server: ServerProcess | undefined;

afterAll(async () => {
  if (server) await killHard(server);
  rmSync(dir, { recursive: true, force: true });
});

test("the walkthrough creates a tenant, writes, searches and takes a signed webhook, as written", async () => {
  const script = walkthroughScript();
  expect(script).toContain(ADDRESS);
  expect(script).toContain(SECRETS_PATH);
  const started = await startWalkthroughServer({ dir, secret: SECRET, label: "walkthrough" });
  server = started.server;
  const secretsFile = started.secretsFile;
  const runnable = script.replaceAll(ADDRESS, server.base).replaceAll(SECRETS_PATH, secretsFile);

  const done = await run(
    ["bash", "-c", `set -euo pipefail\n${runnable}`],
    cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: SECRET }),
    30_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });

  // What the walkthrough printed, answer by answer.
  const [created, fact, decision, search, reload, delivery, entry, ...rest] = jsonValues(done.stdout);
  expect(rest).toEqual([]);
  expect(created).toMatchObject({ tenant_name: "Acme", roles: ["tenant_admin"] });
  expect(created.tenant_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(fact).toMatchObject({
    category: "fact",
    content: "Acme renews its support contract every March",
    created_by: "tenant-admin",
  });
  expect(decision).toMatchObject({ category: "decision", status: "open" });
  expect(search.results.map((r: { entry: { id: string } }) => r.entry.id)).toEqual([fact.id, decision.id]);
  expect(reload).toMatchObject({ secrets: { reloaded: true, tenants_changed: 1 } });
  expect(delivery).toEqual({
    accepted: 1,
    entries: [entry.id],
    duplicates: 0,
    dead_lettered: [],
    ignored: 0,
  });
  expect(entry).toMatchObject({
    category: "fact",
    tags: expect.arrayContaining(["outcome"]),
    source: { system: "standard", event_type: "invoice.completed" },
    created_by: "connector:standard",
  });

  // The secret went to the secrets file, under the tenant's name; the tenant holds both facts.
  const secrets = parseDotenv(readFileSync(secretsFile, "utf8"));
  expect(Object.keys(secrets)).toEqual([`STANDARD_WEBHOOK_SECRET_${created.tenant_id}`]);
  const facts = await httpCall(server.base, "GET", "/memory/facts", { token: created.token });
  expect(facts.body.items.map((e: { id: string }) => e.id)).toEqual([entry.id, fact.id]);
}, 60_000);
