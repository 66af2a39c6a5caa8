import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crmKeyPair, type FakeCrmPlatform, startFakeCrmPlatform } from "./fakes/crm-platform.ts";
import { pollUntil } from "./helpers/poll.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";
import { cleanEnv, run } from "./helpers/spawn.ts";

/**
 * Connectors follow their tenants without a restart: a real server, a tenant created after boot,
 * its CRM stream secrets written to MEMORY_RUNTIME_SECRETS_FILE and a SIGHUP: the stream runs
 * against the local fake; the secrets removed and another SIGHUP: it stops.
 */
const SECRET = "connectors-follow-secret-at-least-32-bytes!";
const dir = mkdtempSync(join(tmpdir(), "mrt-follow-"));
const keys = crmKeyPair();
let fake: FakeCrmPlatform | undefined;
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  fake?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function writeSecrets(path: string, lines: string[]): void {
  writeFileSync(path, `${lines.join("\n")}\n`);
  chmodSync(path, 0o600);
}

const waitFor = <T>(probe: () => Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 10_000, intervalMs: 25 });

test("a tenant created after boot gets its CRM stream on SIGHUP once its secrets are in the file, and loses it when they go", async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, now: () => Date.now(), pollMs: 300 });
  const secretsFile = join(dir, "secrets.env");
  writeSecrets(secretsFile, ["# nothing yet"]);
  const server = await startServerProcess({
    dataDir: join(dir, "data"),
    secret: SECRET,
    logDir: dir,
    label: "follow",
    env: { MEMORY_RUNTIME_SECRETS_FILE: secretsFile },
  });
  servers.push(server);
  const admin = await adminTokenFor(SECRET);
  const created = await httpCall(server.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name: "Late Co" },
  });
  const { tenant_id: t, token } = created.body;
  const crm = async () =>
    (await httpCall(server.base, "GET", `/tenants/${t}/healthz`, { token })).body.connectors.crm;
  expect(await crm()).toBeUndefined();

  writeSecrets(secretsFile, [
    `CRM_CLIENT_ID_${t}=${fake.clientId}`,
    `CRM_PRIVATE_KEY_${t}=${keys.privateKeyBase64}`,
    `CRM_USERNAME_${t}=${fake.username}`,
    `CRM_INSTANCE_URL_${t}=${fake.url}`,
    `CRM_STREAM_URL_${t}=${fake.streamUrl}`,
  ]);
  server.proc.kill("SIGHUP");
  await waitFor(crm, (status) => status?.state === "connected");
  fake.publish("Account", "CREATE", ["001late01"], { Name: "Arrived Through The Stream" });
  const listed = await waitFor(
    async () => (await httpCall(server.base, "GET", "/memory/relationships", { token })).body.items,
    (items: unknown[]) => items.length === 1,
  );
  expect(listed[0]).toMatchObject({ source: { system: "crm" } });

  writeSecrets(secretsFile, ["# removed"]);
  server.proc.kill("SIGHUP");
  await waitFor(crm, (status) => status?.state === "stopped");
  expect(fake.liveStreams()).toBe(0);
  // The server is still up and serving.
  expect((await httpCall(server.base, "GET", "/healthz")).status).toBe(200);
}, 60_000);

test("a secrets file readable by group or others stops the start, naming the fault and no value", async () => {
  const open = join(dir, "open.env");
  writeFileSync(open, "PAYMENTS_WEBHOOK_SECRET_01JDB2X6J3KQ5W8Z3M4N7P9R2S=whsec_do_not_print\n");
  chmodSync(open, 0o644);
  const done = await run(
    [process.execPath, "run", "src/index.ts"],
    cleanEnv({
      MEMORY_RUNTIME_JWT_SECRET: SECRET,
      MEMORY_RUNTIME_DATA_DIR: join(dir, "refused"),
      MEMORY_RUNTIME_SECRETS_FILE: open,
      PORT: "0",
    }),
  );
  expect(done.code).toBe(78);
  expect(done.stderr).toContain("MEMORY_RUNTIME_SECRETS_FILE");
  expect(done.stderr).toContain("chmod 600");
  expect(done.stdout + done.stderr).not.toContain("whsec_do_not_print");
});
