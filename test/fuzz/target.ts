/**
 * The fuzz's target: a real server process (test/helpers/server-process.ts) with planted secrets
 * (its JWT secret, and every webhook secret of its tenants, given through a secrets file and
 * `POST /admin/reload`), local fakes for everything it may call (the mail provider's keys, a
 * loopback receiver for outbound subscriptions), and fixtures built through its own API: tenants
 * (one suspended, one deleted, victims for destructive calls), roles and tokens of several kinds,
 * entries, dead letters and a subscription. The pools of known values follow from them.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { SOURCE_IDS } from "../../src/sources/registry.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { SENDERS } from "../fakes/senders/all.ts";
import {
  adminTokenFor,
  type HttpAnswer,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";
import { ROOT } from "../helpers/spawn.ts";
import type { Pools } from "./request.ts";
import { badCredentials, type Credential } from "./tokens.ts";
import { SIGNED_SOURCES, type SignedDelivery, webhookSigner } from "./webhook-signer.ts";

type Json = Record<string, unknown>;

export interface FuzzTarget {
  server: ServerProcess;
  host: string;
  port: number;
  pools: Pools;
  /** Values no answer may contain: secrets and server-side paths. */
  planted: string[];
  doc: Json;
  sign(source: string, bytes: Uint8Array, url: string): Promise<SignedDelivery>;
  close(): Promise<void>;
}

const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const hex = (n: number) => randomBytes(n).toString("hex");

interface Planted {
  jwt: string;
  data: string;
  crm: string;
  marketing: string;
}

/** `env`: more server environment (for example a smaller open-tenant bound). */
export async function startFuzzTarget(env: Record<string, string> = {}): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), "mrt-fuzz-"));
  const dataDir = join(dir, "data");
  mkdirSync(dataDir);
  const secretsFile = join(dir, "secrets.env");
  writeSecretsFile(secretsFile, "");
  const mail = await startFakeMailProvider();
  const sink = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(null, { status: 204 }),
  });
  const planted: Planted = {
    jwt: `fuzz-jwt-${hex(24)}`,
    data: `fuzz-data-${hex(16)}`,
    crm: `fuzz-crm-${hex(16)}`,
    marketing: `fuzz-mkt-${hex(16)}`,
  };
  const server = await startServerProcess({
    dataDir,
    secret: planted.jwt,
    logDir: dir,
    label: "fuzz-server",
    env: {
      MEMORY_RUNTIME_SECRETS_FILE: secretsFile,
      MAIL_PUBSUB_JWKS_URL: mail.jwksUrl,
      MAIL_API_BASE_URL: mail.apiBaseUrl,
      MAIL_OAUTH_TOKEN_URL: mail.tokenUrl,
      MEMORY_RUNTIME_OUTBOUND_TIMEOUT_SECONDS: "2",
      ...env,
    },
  });
  const url = new URL(server.base);
  try {
    const fixtures = await buildFixtures(
      server.base,
      planted,
      mail,
      secretsFile,
      `http://127.0.0.1:${sink.port}`,
    );
    const doc = (await httpCall(server.base, "GET", "/openapi/json")).body as Json;
    return {
      server,
      host: url.hostname,
      port: Number(url.port),
      pools: fixtures.pools,
      planted: [
        planted.jwt,
        planted.data,
        planted.crm,
        planted.marketing,
        ...SENDERS.flatMap((s) => Object.values(s.secrets)),
        ROOT,
        dir,
      ],
      doc,
      sign: webhookSigner({ data: planted.data, crm: planted.crm, marketing: planted.marketing, mail }),
      async close() {
        server.proc.kill("SIGTERM");
        const exited = await Promise.race([server.proc.exited, Bun.sleep(10_000).then(() => undefined)]);
        if (exited === undefined) await killHard(server);
        mail.stop();
        sink.stop(true);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await killHard(server);
    mail.stop();
    sink.stop(true);
    throw new Error(`fuzz fixtures failed: ${(error as Error).message}\n${server.log()}`);
  }
}

function writeSecretsFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Fails loudly when a fixture call does not answer as expected. */
function expectStatus(what: string, answer: HttpAnswer, status: number): HttpAnswer {
  if (answer.status !== status)
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

async function buildFixtures(
  base: string,
  planted: Planted,
  mail: FakeMailProvider,
  secretsFile: string,
  sinkUrl: string,
): Promise<{ pools: Pools }> {
  const admin = await adminTokenFor(planted.jwt);
  const call = (
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => httpCall(base, method, path, opts);
  const tenant = async (name: string) =>
    expectStatus(
      `create ${name}`,
      await call("POST", "/admin/tenants", { token: admin, body: { name } }),
      201,
    ).body as {
      tenant_id: string;
      token: string;
    };
  const [a, b, c, d, v1, v2] = [
    await tenant("Fuzz A"),
    await tenant("Fuzz B"),
    await tenant("Fuzz Suspended"),
    await tenant("Fuzz Deleted"),
    await tenant("Fuzz Victim 1"),
    await tenant("Fuzz Victim 2"),
  ];
  const webhookTenants = [a.tenant_id, b.tenant_id, c.tenant_id];
  writeSecretsFile(secretsFile, secretsLines([...webhookTenants, v1.tenant_id, v2.tenant_id], planted, mail));
  expectStatus("reload", await call("POST", "/admin/reload", { token: admin }), 200);

  const roles: Record<string, string[]> = {
    reader: ["memory:read"],
    writer: ["memory:write:decisions", "memory:write:facts"],
    searcher: ["memory:search:facts", "tenant:read"],
    nothing: [],
  };
  const tokens: Credential[] = [];
  for (const [name, permissions] of Object.entries(roles)) {
    expectStatus(
      `role ${name}`,
      await call("POST", `/admin/roles/${a.tenant_id}`, { token: admin, body: { name, permissions } }),
      201,
    );
    const minted = await call("POST", `/admin/jwt/${a.tenant_id}`, {
      token: admin,
      body: { roles: [name], sub: `fuzz-${name}` },
    });
    tokens.push({
      name: `valid:${name}`,
      authorization: `Bearer ${expectStatus(`jwt ${name}`, minted, 201).body.token}`,
    });
  }

  const ownEntryIds = await seedEntries(call, a.token);
  const entryIds = [...ownEntryIds, ...(await seedEntries(call, b.token))];
  const eventIds = await seedDeadLetters(call, a.tenant_id, planted.data);
  const subscription = await call("POST", `/admin/subscriptions/${a.tenant_id}`, {
    token: admin,
    body: { url: `${sinkUrl}/hook`, events: ["entry.created"] },
  });
  expectStatus("subscription", subscription, 201);

  expectStatus("suspend", await call("POST", `/admin/tenants/${c.tenant_id}/suspend`, { token: admin }), 200);
  expectStatus("suspend", await call("POST", `/admin/tenants/${d.tenant_id}/suspend`, { token: admin }), 200);
  expectStatus("delete", await call("DELETE", `/admin/tenants/${d.tenant_id}`, { token: admin }), 200);

  const adminCredentials: Credential[] = [
    { name: "valid:admin", authorization: `Bearer ${admin}` },
    { name: "valid:admin-cookie", cookie: admin },
  ];
  const tenantCredentials: Credential[] = [
    { name: "valid:owner-a", authorization: `Bearer ${a.token}` },
    ...tokens,
    { name: "valid:owner-b", authorization: `Bearer ${b.token}` },
  ];
  const validCredentials: Credential[] = [
    ...adminCredentials,
    ...tenantCredentials,
    { name: "valid:suspended-tenant", authorization: `Bearer ${c.token}` },
    { name: "valid:deleted-tenant", authorization: `Bearer ${d.token}` },
  ];
  const facts = {
    secret: planted.jwt,
    tenantId: a.tenant_id,
    unknownTenantId: UNKNOWN_TENANT,
    operatorId: OPERATOR_TENANT_ID,
  };
  return {
    pools: {
      credentials: badCredentials(facts, a.token),
      validCredentials,
      adminCredentials,
      tenantCredentials,
      tenantIds: [a.tenant_id, b.tenant_id, c.tenant_id, d.tenant_id, OPERATOR_TENANT_ID, UNKNOWN_TENANT],
      victimIds: [v1.tenant_id, v2.tenant_id, UNKNOWN_TENANT],
      webhookTenants,
      entryIds: [...entryIds, "00000000", "ffffffff"],
      ownEntryIds,
      eventIds: [...eventIds, "no-such-event"],
      roleNames: [...Object.keys(roles), "tenant_admin", "ghost"],
      subscriptionIds: [subscription.body.id, "sub_01JDB2X6J3KQ5W8Z3M4N7P9R2S"],
      sourceIds: [...SOURCE_IDS, "unknown_source"],
      signedSources: SIGNED_SOURCES,
      loopbackUrls: [
        `${sinkUrl}/hook`,
        `${sinkUrl}/slow`,
        "http://127.0.0.1:9/closed",
        "https://127.0.0.1:9/tls",
        "http://example.com/plain-http",
      ],
    },
  };
}

/** Every webhook secret of every source, for each tenant (a dotenv file, mode 600). */
function secretsLines(tenants: string[], planted: Planted, mail: FakeMailProvider): string {
  const bases: Record<string, string> = {
    DATA_WEBHOOK_TOKEN: planted.data,
    CRM_WEBHOOK_SECRET: planted.crm,
    MARKETING_CRM_CLIENT_SECRET: planted.marketing,
    MARKETING_CRM_APP_ID: "54321",
    MAIL_PUBSUB_AUDIENCE: mail.audience,
    MAIL_WATCH_EMAIL: "fuzz@example.com",
    ...Object.assign({}, ...SENDERS.map((s) => s.secrets)),
  };
  const lines: string[] = [];
  for (const t of tenants)
    for (const [base, value] of Object.entries(bases)) lines.push(`${base}_${t}=${JSON.stringify(value)}`);
  return `${lines.join("\n")}\n`;
}

type Call = (
  method: string,
  path: string,
  opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<HttpAnswer>;

async function seedEntries(call: Call, token: string): Promise<string[]> {
  const write = async (plural: string, body: Json) =>
    expectStatus(`seed ${plural}`, await call("POST", `/memory/${plural}`, { token, body }), 201).body
      .id as string;
  const decision = await write("decisions", {
    content: "Renew the Acme contract at list price",
    amount: 1200,
    stage: "proposal",
  });
  return [
    decision,
    await write("facts", { content: "Acme has 40 seats", tags: ["acme"] }),
    await write("exceptions", { content: "Invoice 17 failed", severity: "high" }),
    await write("workflows", { content: "Onboarding", steps: ["call", "train"] }),
    await write("relationships", {
      content: "Ann works at Acme",
      subject: "Ann",
      predicate: "works at",
      object: "Acme",
    }),
    await write("outcomes", {
      content: "Acme renewed",
      decision_id: decision,
      result: "success",
      amount: 1200,
    }),
  ];
}

/** Events of a type the `data` source does not map: kept as dead letters. */
async function seedDeadLetters(call: Call, tenantId: string, dataToken: string): Promise<string[]> {
  const ids: string[] = [];
  for (const model of ["churn", "ltv"]) {
    const event = {
      event: "MODEL_VERSION_DELETED",
      webhook_id: "wh",
      event_timestamp: 1763719200000,
      model_name: model,
      version: "1",
    };
    const answer = await call("POST", `/webhooks/data/${tenantId}`, {
      body: event,
      headers: { authorization: `Bearer ${dataToken}` },
    });
    ids.push(...(expectStatus("dead letter", answer, 200).body.dead_lettered as string[]));
  }
  return ids;
}
