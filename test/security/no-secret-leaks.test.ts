/**
 * No secret leaks (issue 13, item 8). A real server process (test/helpers/server-process.ts) runs
 * with a distinctive value planted in every secret it knows: the JWT secret, the embeddings API key,
 * every per-tenant webhook and connector secret of the 22 sources for two tenants (A, whose
 * platforms sign with them; B, whose values match nothing), the operator's and tenants' tokens, and
 * outbound subscription secrets. A representative run drives it: good, forged, dead-lettered and
 * replayed deliveries of every source, connectors that connect and connectors that are refused, an
 * upstream that echoes the API key, denials, admin actions, a refused secrets file, the dashboard's
 * cookie flow, health, metrics, exports and errors. Then every answer (status, headers, body), the
 * outbound deliveries, the server's log file and its stdout are searched for every secret in every
 * form (raw, base64, base64url, hex, URL- and JSON-escaped, decoded key material), and none is found.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crmKeyPair, type FakeCrmPlatform, startFakeCrmPlatform } from "../fakes/crm-platform.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { SENDERS } from "../fakes/senders/all.ts";
import { craftJwt, nowSeconds } from "../helpers/jwt.ts";
import { pollUntil } from "../helpers/poll.ts";
import {
  adminTokenFor,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";
import { Receiver } from "../outbound/receiver.ts";
import {
  crmDelivery,
  type Delivery,
  dataDelivery,
  dataJobSucceeded,
  dataModelDeleted,
  graphDeadLetter,
  kitDelivery,
  mailPush,
  marketingDelivery,
  tampered,
} from "./deliveries.ts";
import { ECHO_MARKER, type EchoingEmbeddings, startEchoingEmbeddings } from "./echoing-embeddings.ts";
import { LeakScan, type Planted } from "./leak-scan.ts";
import {
  distinctive,
  plantedOf,
  secretsFileText,
  type TenantSecrets,
  tenantASecrets,
  tenantBSecrets,
} from "./planted.ts";
import { type Answer, RecordingClient } from "./recording-client.ts";

const DIMS = 8;
const dir = mkdtempSync(join(tmpdir(), "mrt-leaks-"));
const JWT_SECRET = distinctive("jwt-secret", 24);
const EMBEDDINGS_KEY = distinctive("embeddings-api-key");
const secretsFile = join(dir, "secrets.env");

let server: ServerProcess | undefined;
let mail: FakeMailProvider | undefined;
let crm: FakeCrmPlatform | undefined;
let embeddings: EchoingEmbeddings | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  if (server) await killHard(server);
  mail?.stop();
  crm?.stop();
  embeddings?.stop();
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the run has made so far: the client, the tenants, and every planted secret. */
interface Run {
  client: RecordingClient;
  scan: LeakScan;
  admin: string;
  planted: Planted[];
  a: { id: string; token: string; secrets: TenantSecrets };
  b: { id: string; token: string; secrets: TenantSecrets };
}

function writeSecrets(text: string): void {
  writeFileSync(secretsFile, text);
  chmodSync(secretsFile, 0o600);
}

function post(run: Run, delivery: Delivery): Promise<Answer> {
  return run.client.call("POST", delivery.path, { raw: delivery.body, headers: delivery.headers });
}

function expectStatus(what: string, answer: Answer, status: number): void {
  expect({ what, place: answer.place, status: answer.status }).toEqual({ what, place: answer.place, status });
}

const waitFor = <T>(probe: () => Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 15_000, intervalMs: 50 });

async function startEverything(): Promise<Run> {
  const crmKeys = crmKeyPair();
  mail = await startFakeMailProvider();
  crm = await startFakeCrmPlatform({
    publicKeyPem: crmKeys.publicKeyPem,
    now: () => Date.now(),
    pollMs: 300,
  });
  embeddings = startEchoingEmbeddings(EMBEDDINGS_KEY, DIMS);
  receiver = await Receiver.start();
  writeSecrets("# filled once the tenants exist\n");
  server = await startServerProcess({
    dataDir: join(dir, "data"),
    secret: JWT_SECRET,
    logDir: dir,
    label: "leaks",
    env: {
      MEMORY_RUNTIME_SECRETS_FILE: secretsFile,
      MEMORY_RUNTIME_EMBEDDER: "http",
      MEMORY_RUNTIME_EMBEDDINGS_URL: embeddings.url,
      MEMORY_RUNTIME_EMBEDDINGS_API_KEY: EMBEDDINGS_KEY,
      MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS),
      MAIL_PUBSUB_JWKS_URL: mail.jwksUrl,
      MAIL_OAUTH_TOKEN_URL: mail.tokenUrl,
      MAIL_API_BASE_URL: mail.apiBaseUrl,
      MEMORY_RUNTIME_OUTBOUND_RETRY_MAX_SECONDS: "1",
    },
  });
  const scan = new LeakScan();
  const client = new RecordingClient(server.base, scan);
  const admin = await adminTokenFor(JWT_SECRET);
  const created = async (name: string) => {
    const answer = await client.call("POST", "/admin/tenants", { token: admin, json: { name } });
    expect(answer.status).toBe(201);
    return answer;
  };
  const ca = await created("Leak A");
  const cb = await created("Leak B");
  const a = { id: ca.body.tenant_id, token: ca.body.token, secrets: tenantASecrets(mail, crm, crmKeys) };
  const b = { id: cb.body.tenant_id, token: cb.body.token, secrets: tenantBSecrets(mail, crm, crmKeyPair()) };
  const planted: Planted[] = [
    { name: "MEMORY_RUNTIME_JWT_SECRET", value: JWT_SECRET },
    { name: "MEMORY_RUNTIME_EMBEDDINGS_API_KEY", value: EMBEDDINGS_KEY },
    { name: "operator token", value: admin },
    { name: "tenant A token", value: a.token, belongsIn: [ca.place] },
    { name: "tenant B token", value: b.token, belongsIn: [cb.place] },
    ...plantedOf("A", a.secrets),
    ...plantedOf("B", b.secrets),
  ];
  return { client, scan, admin, planted, a, b };
}

/** Secrets into the file, a refused version of it (a malformed line holding a secret), reloads. */
async function loadSecrets(run: Run): Promise<void> {
  const good = secretsFileText({ [run.a.id]: run.a.secrets, [run.b.id]: run.b.secrets });
  writeSecrets(`${good}this line is broken ${run.a.secrets.values.DATA_WEBHOOK_TOKEN}\n`);
  const refused = await run.client.call("POST", "/admin/reload", { token: run.admin });
  expectStatus("refused reload", refused, 200);
  expect(refused.body.secrets.reloaded).toBe(false);
  writeSecrets(good);
  const reloaded = await run.client.call("POST", "/admin/reload", { token: run.admin });
  expectStatus("reload", reloaded, 200);
  expect(reloaded.body.secrets.reloaded).toBe(true);
  // And once by signal, whose report goes to stdout.
  server!.proc.kill("SIGHUP");
  await waitFor(
    async () => server!.output(),
    (out) => out.includes("SIGHUP:"),
  );
}

/** A's connectors connect to the fakes; B's are refused (wrong client secret, unknown key). */
async function connectors(run: Run): Promise<void> {
  const health = (t: { id: string }) =>
    run.client.call("GET", `/tenants/${t.id}/healthz`, { token: run.admin }).then((r) => r.body.connectors);
  await waitFor(
    () => health(run.a),
    (c) => c?.crm?.state === "connected" && c?.mail?.state === "active",
  );
  await waitFor(
    () => health(run.b),
    (c) => Boolean(c?.crm?.last_error) && Boolean(c?.mail?.last_error),
  );
  crm!.publish("Account", "CREATE", ["001leak01"], { Name: "Through The Stream" });
}

/** Every source: a good delivery to A, a forged one to A, one signed with A's secrets to B. */
async function deliveries(run: Run): Promise<void> {
  const now = Date.now();
  const { a, b } = run;
  const va = a.secrets.values;
  for (const sender of SENDERS) {
    const good = await kitDelivery(sender, run.client.base, a.id, now);
    expectStatus(`${sender.source} good`, await post(run, good), 200);
    if (sender.signsBody) expectStatus(`${sender.source} forged`, await post(run, tampered(good)), 401);
    const toB = await kitDelivery(sender, run.client.base, b.id, now);
    expectStatus(`${sender.source} wrong secret`, await post(run, toB), 401);
  }
  const good: Array<[string, Delivery]> = [
    [
      "marketing_crm",
      marketingDelivery(a.id, va.MARKETING_CRM_CLIENT_SECRET!, va.MARKETING_CRM_APP_ID!, "contact.creation"),
    ],
    ["data", dataDelivery(a.id, va.DATA_WEBHOOK_TOKEN!, dataJobSucceeded(1))],
    ["crm", crmDelivery(a.id, va.CRM_WEBHOOK_SECRET!, "Account")],
    ["mail", await mailPush(mail!, a.id, va.MAIL_WATCH_EMAIL!, 1001)],
  ];
  for (const [what, delivery] of good) expectStatus(`${what} good`, await post(run, delivery), 200);
  const vb = b.secrets.values;
  const wrong: Array<[string, Delivery]> = [
    [
      "marketing_crm",
      marketingDelivery(b.id, va.MARKETING_CRM_CLIENT_SECRET!, vb.MARKETING_CRM_APP_ID!, "contact.creation"),
    ],
    ["data", dataDelivery(b.id, va.DATA_WEBHOOK_TOKEN!, dataJobSucceeded(2))],
    ["crm", crmDelivery(b.id, va.CRM_WEBHOOK_SECRET!, "Account")],
  ];
  for (const [what, delivery] of wrong) expectStatus(`${what} wrong secret`, await post(run, delivery), 401);
}

/** Deliveries kept as dead letters (payload and headers stored), then replayed. */
async function deadLetters(run: Run): Promise<void> {
  const { a } = run;
  const va = a.secrets.values;
  const dead: Array<[string, Delivery]> = [
    ["office_graph", graphDeadLetter(a.id, va.OFFICE_GRAPH_CLIENT_STATE!)],
    [
      "marketing_crm",
      marketingDelivery(a.id, va.MARKETING_CRM_CLIENT_SECRET!, va.MARKETING_CRM_APP_ID!, "contact.deletion"),
    ],
    ["data", dataDelivery(a.id, va.DATA_WEBHOOK_TOKEN!, dataModelDeleted(1763719200000))],
    ["crm", crmDelivery(a.id, va.CRM_WEBHOOK_SECRET!, "Invoice__c")],
    ["mail", await mailPush(mail!, a.id, "someone-else@leak.example.com", 1002)],
  ];
  for (const [what, delivery] of dead) {
    const answer = await post(run, delivery);
    expectStatus(`${what} dead letter`, answer, 200);
    const summary = what === "crm" ? JSON.parse(answer.headers.get("x-memory-summary")!) : answer.body;
    expect({ what, dead: summary.dead_lettered.length }).toEqual({ what, dead: 1 });
  }
  const listed = await run.client.call("GET", `/admin/webhooks/dead-letters/${a.id}?limit=100`, {
    token: run.admin,
  });
  expectStatus("dead letters", listed, 200);
  expect(listed.body.dead_letters.length).toBeGreaterThanOrEqual(dead.length);
  for (const letter of listed.body.dead_letters) {
    const path = `/admin/webhooks/replay/${a.id}/${encodeURIComponent(letter.event_id)}?source=${letter.source}`;
    expectStatus("replay", await run.client.call("POST", path, { token: run.admin }), 200);
  }
}

/** Memory through the http embedder, including an upstream failure that quotes the API key. */
async function memory(run: Run): Promise<void> {
  const token = run.a.token;
  const fact = await run.client.call("POST", "/memory/facts", {
    token,
    json: { content: "the vault opens at nine" },
  });
  expectStatus("write", fact, 201);
  // A write is embedded after its answer: the embedder failing on it fails no write, and its error
  // (in the log and the tenant's health) carries no key.
  const written = await run.client.call("POST", "/memory/facts", {
    token,
    json: { content: `x ${ECHO_MARKER}` },
  });
  expectStatus("write with a failing embedder", written, 201);
  // A search embeds its query at once: the failure is the upstream's (503 with Retry-After).
  const echoed = await run.client.call("POST", "/memory/search", {
    token,
    json: { query: `x ${ECHO_MARKER}` },
  });
  expectStatus("search with a failing embedder", echoed, 503);
  expect(echoed.body.code).toBe("unavailable");
  expect(echoed.headers.get("retry-after")).toBe("5");
  const health = await pollUntil(
    () => run.client.call("GET", `/tenants/${run.a.id}/healthz`, { token }),
    (answer) => answer.body?.index?.embedder?.last_error !== undefined,
    { timeoutMs: 15_000, intervalMs: 50 },
  );
  expect(health.body.index.embedder.last_error).toContain("[redacted]");
  expectStatus(
    "search",
    await run.client.call("POST", "/memory/search", { token, json: { query: "vault" } }),
    200,
  );
  expectStatus("list", await run.client.call("GET", "/memory/facts?limit=50", { token }), 200);
  expectStatus("read", await run.client.call("GET", `/memory/facts/${fact.body.id}`, { token }), 200);
  const mcp = await run.client.call("POST", "/mcp", {
    token,
    json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    headers: { accept: "application/json, text/event-stream" },
  });
  expectStatus("mcp", mcp, 200);
}

/** Refusals of every kind: wrong permission, wrong tenant, bad tokens, a token where none belongs. */
async function denials(run: Run): Promise<void> {
  const { a, b, admin } = run;
  const role = await run.client.call("POST", `/admin/roles/${a.id}`, {
    token: admin,
    json: { name: "reader", permissions: ["memory:read"] },
  });
  expectStatus("role", role, 201);
  const minted = await run.client.call("POST", `/admin/jwt/${a.id}`, {
    token: admin,
    json: { roles: ["reader"], sub: "leaky" },
  });
  expectStatus("mint", minted, 201);
  run.planted.push({ name: "minted reader token", value: minted.body.token, belongsIn: [minted.place] });
  const reader = minted.body.token as string;
  const call = (what: string, status: number, method: string, path: string, opts = {}) =>
    run.client.call(method, path, opts).then((answer) => expectStatus(what, answer, status));
  await call("reader writes", 403, "POST", "/memory/facts", { token: reader, json: { content: "no" } });
  await call("tenant on admin", 403, "GET", "/admin/tenants", { token: a.token });
  await call("cross tenant", 403, "GET", `/tenants/${b.id}/healthz`, { token: a.token });
  const forged = craftJwt(
    { alg: "HS256", typ: "JWT" },
    { sub: "forger", tenant_id: a.id, roles: ["tenant_admin"], iat: nowSeconds(), exp: nowSeconds() + 600 },
    distinctive("other-secret", 24),
  );
  await call("forged token", 401, "GET", "/tenants", { token: forged });
  await call("mangled token", 401, "GET", "/tenants", { token: `${a.token.slice(0, -4)}AAAA` });
  await call("token as a query", 401, "GET", `/tenants?access_token=${admin}`);
  await call("token as a cookie on a write", 401, "POST", "/admin/reload", {
    headers: { cookie: `memory_admin=${admin}` },
  });
  await call("denials", 200, "GET", `/admin/audit/denials/${a.id}`, { token: admin });
}

/** Admin actions: subscriptions (their secrets), suspend and resume, audit, metrics, exports. */
async function adminActions(run: Run): Promise<void> {
  const { a, b, admin } = run;
  const generated = await run.client.call("POST", `/admin/subscriptions/${a.id}`, {
    token: admin,
    json: { url: receiver!.url(), events: ["entry.created", "deadletter.created"] },
  });
  expectStatus("subscribe", generated, 201);
  // Subscription secrets are shown once, at creation, and kept in the tenant's vault to sign with.
  const vault = atRest(join(dir, "data", "tenants", a.id, "data.mdb"));
  run.planted.push({
    name: "generated whsec_ secret",
    value: generated.body.secret,
    belongsIn: [generated.place, vault],
  });
  const given = `whsec_${Buffer.from(distinctive("given-subscription-key", 16)).toString("base64")}`;
  const chosen = await run.client.call("POST", `/admin/subscriptions/${a.id}`, {
    token: admin,
    json: { url: receiver!.url("/chosen"), events: ["entry.created"], secret: given },
  });
  expectStatus("subscribe with a secret", chosen, 201);
  run.planted.push({ name: "given whsec_ secret", value: given, belongsIn: [chosen.place, vault] });
  const written = await run.client.call("POST", "/memory/facts", {
    token: a.token,
    json: { content: "sent out" },
  });
  expectStatus("write for subscribers", written, 201);
  await waitFor(
    async () => receiver!.received.length,
    (n) => n >= 2,
  );
  const call = (what: string, status: number, method: string, path: string) =>
    run.client.call(method, path, { token: admin }).then((answer) => expectStatus(what, answer, status));
  await call("subscriptions", 200, "GET", `/admin/subscriptions/${a.id}`);
  await call("deliveries", 200, "GET", `/admin/subscriptions/${a.id}/${generated.body.id}/deliveries`);
  // A suspended tenant's deliveries (still verified, here with B's own token) wait as dead letters.
  await call("suspend", 200, "POST", `/admin/tenants/${b.id}/suspend`);
  const held = dataDelivery(b.id, b.secrets.values.DATA_WEBHOOK_TOKEN!, dataJobSucceeded(3));
  const kept = await post(run, held);
  expectStatus("delivery to a suspended tenant", kept, 200);
  expect(kept.body.dead_lettered).toHaveLength(1);
  await call("resume", 200, "POST", `/admin/tenants/${b.id}/resume`);
  const replayed = `/admin/webhooks/replay/${b.id}/${encodeURIComponent(kept.body.dead_lettered[0])}`;
  await call("replay after resume", 200, "POST", replayed);
  await call("audit", 200, "GET", "/admin/audit/events?limit=500");
  await call("metrics", 200, "GET", `/admin/metrics/revenue-per-agent/${a.id}`);
  await call("export A", 200, "GET", `/admin/tenants/${a.id}/export`);
  await call("export B", 200, "GET", `/admin/tenants/${b.id}/export`);
  await call("dead letters B", 200, "GET", `/admin/webhooks/dead-letters/${b.id}?limit=100`);
}

/** The dashboard's cookie flow: the form, the session (sets the cookie), the page by cookie, sign-out. */
async function dashboard(run: Run): Promise<void> {
  expectStatus("dashboard form", await run.client.call("GET", "/admin/dashboard"), 401);
  const session = await run.client.call("POST", "/admin/dashboard/session", {
    raw: `token=${encodeURIComponent(run.admin)}`,
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expectStatus("dashboard session", session, 303);
  // The cookie is the operator's own token, set in the answer to the operator posting it.
  run.planted.find((p) => p.name === "operator token")!.belongsIn = [session.place];
  const cookie = session.headers.get("set-cookie")!.split(";")[0]!;
  const page = await run.client.call("GET", "/admin/dashboard", { headers: { cookie } });
  expectStatus("dashboard page", page, 200);
  expect(page.text).toContain("Leak A");
  expectStatus(
    "dashboard by bearer",
    await run.client.call("GET", "/admin/dashboard", { token: run.admin }),
    200,
  );
  expectStatus(
    "sign out",
    await run.client.call("GET", "/admin/dashboard/sign-out", { headers: { cookie } }),
    303,
  );
}

/** Health, the OpenAPI document, and errors of every status. */
async function healthAndErrors(run: Run): Promise<void> {
  const { a, admin } = run;
  const call = (what: string, status: number, method: string, path: string, opts = {}) =>
    run.client.call(method, path, opts).then((answer) => expectStatus(what, answer, status));
  await call("healthz", 200, "GET", "/healthz");
  await call("tenant health A", 200, "GET", `/tenants/${a.id}/healthz`, { token: admin });
  await call("tenant health B", 200, "GET", `/tenants/${run.b.id}/healthz`, { token: admin });
  await call("openapi", 200, "GET", "/openapi/json");
  await call("not found", 404, "GET", "/nowhere");
  await call("unknown source", 404, "POST", `/webhooks/nope/${a.id}`, { raw: "{}" });
  await call("method not allowed", 405, "DELETE", "/healthz");
  await call("validation", 422, "POST", "/memory/facts", { token: a.token, json: { content: 5 } });
  await call("malformed json", 400, "POST", "/memory/facts", {
    token: a.token,
    raw: "{",
    headers: { "content-type": "application/json" },
  });
  await call("too large", 413, "POST", "/memory/facts", {
    token: a.token,
    json: { content: "x".repeat(2 * 1024 * 1024) },
  });
  const bare = await run.client.call("POST", "/admin/tenants", { token: admin, json: { name: "Leak C" } });
  run.planted.push({ name: "tenant C token", value: bare.body.token, belongsIn: [bare.place] });
  const delivery = await kitDelivery(SENDERS[0]!, run.client.base, bare.body.tenant_id, Date.now());
  expectStatus("secret missing", await post(run, delivery), 503);
}

const atRest = (file: string) => `at rest: ${file}`;

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

test("no planted secret appears in any answer, outbound delivery, log or page of a representative run", async () => {
  const run = await startEverything();
  await loadSecrets(run);
  await connectors(run);
  await deliveries(run);
  await deadLetters(run);
  await memory(run);
  await denials(run);
  await adminActions(run);
  await dashboard(run);
  await healthAndErrors(run);

  // Access tokens the platforms issued to the connectors are secrets the runtime holds, too.
  for (let i = 1; i <= mail!.hits.token; i++)
    run.planted.push({ name: `mail access token ${i}`, value: `at-${i}-secret` });
  for (let i = 1; i <= crm!.hits.token; i++)
    run.planted.push({ name: `crm access token ${i}`, value: `00Dxx!fake-${i}` });

  server!.proc.kill("SIGTERM");
  expect(await server!.proc.exited).toBe(0);
  const log = readFileSync(join(dir, "leaks.log"), "utf8");
  run.scan.record("server log (stderr)", log);
  run.scan.record("server stdout", server!.output());
  for (const file of filesUnder(join(dir, "data")))
    run.scan.record(atRest(file), readFileSync(file, "latin1"));
  for (const [i, r] of receiver!.received.entries())
    run.scan.record(`outbound delivery ${i + 1}`, `${JSON.stringify(r.headers)}\n${r.body}`);

  const { leaks, checks, forms } = run.scan.scan(run.planted);
  const figures = {
    requests: run.client.calls,
    places: run.scan.placeCount,
    secrets: run.planted.length,
    forms,
    checks,
    leaks: leaks.length,
  };
  console.log(`no-secret-leaks: ${JSON.stringify(figures)}`);
  expect(leaks).toEqual([]);
  // The run went where it says: the upstream's echo of the API key reached the log redacted, A's
  // connectors got tokens, B's key was refused, events went out to both subscriptions.
  expect(log).toContain("[redacted]");
  // The search's query, and the background embedder's attempts at the written entry (retried).
  expect(embeddings!.hits.echoed).toBeGreaterThanOrEqual(2);
  expect(mail!.hits.token).toBeGreaterThanOrEqual(1);
  expect(crm!.refusedAssertions.length).toBeGreaterThanOrEqual(1);
  expect(new Set(receiver!.received.map((r) => r.path))).toEqual(new Set(["/hook", "/chosen"]));
  expect(run.planted.length).toBeGreaterThanOrEqual(50);
}, 120_000);
