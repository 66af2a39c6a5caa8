import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/runtime/clock.ts";
import { crmKeyPair, type FakeCrmPlatform, startFakeCrmPlatform } from "../fakes/crm-platform.ts";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

/**
 * A tenant's life: suspended (tokens 403 `tenant_suspended`, audited; webhook and bridge events kept
 * as dead letters; connectors stopped), resumed (all of it back, nothing lost), deleted (only when
 * suspended; its vault, roles and audit records erased; its tokens refused). Every step is in the
 * admin audit log at once.
 */
const clock = new ManualClock();
const keys = crmKeyPair();
let fake: FakeCrmPlatform;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, now: () => clock.now(), pollMs: 300 });
  h = await startHarness({ clock });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

const admin = (method: string, path: string, body?: unknown) =>
  h.json(method, path, { token: h.adminToken, body });

async function tenantWithEverything() {
  const t = await h.createTenant();
  setSecrets(h, t.tenant_id, {
    DATA_WEBHOOK_TOKEN: "lifecycle-data-token",
    CRM_CLIENT_ID: fake.clientId,
    CRM_PRIVATE_KEY: keys.privateKeyBase64,
    CRM_USERNAME: fake.username,
    CRM_INSTANCE_URL: fake.url,
    CRM_STREAM_URL: fake.streamUrl,
  });
  await h.runtime.startConnectorsFor(t.tenant_id);
  await crmState(t.tenant_id, "connected");
  return t;
}

const health = async (tenantId: string) => (await admin("GET", `/tenants/${tenantId}/healthz`)).body;
const crmState = (tenantId: string, state: string) =>
  pollUntil(
    () => health(tenantId),
    (body) => body.connectors?.crm?.state === state,
    { timeoutMs: 4000 },
  );
const job = (runId: string) => ({
  event_type: "jobs.on_success",
  workspace_id: 1,
  run: { run_id: runId, run_duration: 1000 },
  job: { job_id: 2, name: "nightly" },
});
const postJob = (tenantId: string, runId: string) =>
  h.json("POST", `/webhooks/data/${tenantId}`, {
    body: job(runId),
    headers: { authorization: "Bearer lifecycle-data-token" },
  });

describe("suspend", () => {
  test("tokens get 403 tenant_suspended (each audited), events wait as dead letters, connectors stop", async () => {
    const t = await tenantWithEverything();
    const streams = fake.liveStreams();
    const suspended = await admin("POST", `/admin/tenants/${t.tenant_id}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ tenant_id: t.tenant_id, status: "suspended" });

    const refused = await h.call("GET", "/memory/facts", { token: t.token });
    const problem = await expectProblem(refused, 403, "tenant_suspended");
    expect(problem.type).toBe("/problems/tenant_suspended");
    const denials = await denialsOf(h, t.tenant_id);
    expect(denials[0]).toMatchObject({ path: "/memory/facts", permission: "tenant:active" });

    const delivered = await postJob(t.tenant_id, "suspended-run-1");
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ accepted: 0, dead_lettered: ["jobs.on_success:suspended-run-1"] });
    const bridged = await h.runtime.bridge.deliver(t.tenant_id, {
      type: "message",
      channel: "C1",
      user: "U1",
      text: "said while suspended",
      ts: "1763720000.000001",
    });
    expect(bridged.dead_lettered).toEqual(["C1:1763720000.000001:message"]);
    const letters = (await admin("GET", `/admin/webhooks/dead-letters/${t.tenant_id}`)).body.dead_letters;
    expect(letters.map((l: { last_error: string }) => l.last_error)).toEqual([
      "tenant_suspended",
      "tenant_suspended",
    ]);

    expect((await crmState(t.tenant_id, "stopped")).connectors.crm.state).toBe("stopped");
    expect(fake.liveStreams()).toBe(streams - 1);
  });

  test("resume: tokens work, connectors restart, and what arrived meanwhile is replayed into memory", async () => {
    const t = await tenantWithEverything();
    await admin("POST", `/admin/tenants/${t.tenant_id}/suspend`);
    await postJob(t.tenant_id, "while-away");
    const resumed = await admin("POST", `/admin/tenants/${t.tenant_id}/resume`);
    expect(resumed.body.status).toBe("active");
    expect((await h.call("GET", "/memory/facts", { token: t.token })).status).toBe(200);
    await crmState(t.tenant_id, "connected");
    const replay = await admin(
      "POST",
      `/admin/webhooks/replay/${t.tenant_id}/${encodeURIComponent("jobs.on_success:while-away")}`,
    );
    expect(replay.body).toMatchObject({ status: "replayed" });
    const fact = await h.json("GET", `/memory/facts/${replay.body.entries[0]}`, { token: t.token });
    expect(fact.body.content).toContain("Job nightly run while-away succeeded");
    // New deliveries are written again.
    expect((await postJob(t.tenant_id, "after-resume")).body.accepted).toBe(1);
  });

  test("suspend, resume and delete of an unknown or malformed tenant → 404; a tenant token → 403", async () => {
    const t = await h.createTenant();
    for (const path of ["/admin/tenants/01JDB2X6J3KQ5W8Z3M4N7P9R2S/suspend", "/admin/tenants/nope/resume"]) {
      await expectProblem(await h.call("POST", path, { token: h.adminToken }), 404, "not_found");
    }
    await expectProblem(
      await h.call("DELETE", "/admin/tenants/01JDB2X6J3KQ5W8Z3M4N7P9R2S", { token: h.adminToken }),
      404,
      "not_found",
    );
    await expectProblem(
      await h.call("POST", `/admin/tenants/${t.tenant_id}/suspend`, { token: t.token }),
      403,
      "forbidden",
    );
  });
});

describe("delete", () => {
  test("an active tenant cannot be deleted (409)", async () => {
    const t = await h.createTenant();
    await expectProblem(
      await h.call("DELETE", `/admin/tenants/${t.tenant_id}`, { token: h.adminToken }),
      409,
      "conflict",
    );
    expect((await h.call("GET", "/tenants/me", { token: t.token })).status).toBe(200);
  });

  test("a suspended tenant is erased: vault, roles, denials; it answers what it removed; its tokens are refused", async () => {
    const t = await tenantWithEverything();
    await postJob(t.tenant_id, "kept-then-erased");
    await admin("POST", `/admin/roles/${t.tenant_id}`, { name: "reader", permissions: ["memory:read"] });
    const streams = fake.liveStreams();
    await admin("POST", `/admin/tenants/${t.tenant_id}/suspend`);
    await h.call("GET", "/memory/facts", { token: t.token }); // one denial
    await postJob(t.tenant_id, "dead-while-suspended");
    const vaultDir = join(h.dataDir, "tenants", t.tenant_id);
    expect(existsSync(vaultDir)).toBe(true);

    const deleted = await admin("DELETE", `/admin/tenants/${t.tenant_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      deleted: t.tenant_id,
      removed: { entries: 1, dead_letters: 1, roles: 1, denials: 1 },
    });
    expect(existsSync(vaultDir)).toBe(false);
    await expectProblem(await h.call("GET", "/tenants/me", { token: t.token }), 401, "unauthorized");
    await expectProblem(
      await h.call("GET", `/admin/roles/${t.tenant_id}`, { token: h.adminToken }),
      404,
      "not_found",
    );
    const listed = (await admin("GET", "/admin/tenants?limit=1000")).body.tenants;
    expect(listed.map((x: { tenant_id: string }) => x.tenant_id)).not.toContain(t.tenant_id);
    expect(fake.liveStreams()).toBe(streams - 1);
    // Its webhooks are now for an unknown tenant.
    await expectProblem(
      await h.call("POST", `/webhooks/data/${t.tenant_id}`, { body: job("x") }),
      404,
      "not_found",
    );
  });
});

describe("the admin audit log", () => {
  test("every admin action appears at once, newest first, with no secret or token in it", async () => {
    const t = await h.createTenant("Audited Co");
    await admin("POST", `/admin/roles/${t.tenant_id}`, { name: "agent", permissions: ["memory:read"] });
    await admin("POST", `/admin/roles/${t.tenant_id}`, { name: "agent", permissions: ["memory:*"] });
    const minted = await admin("POST", `/admin/jwt/${t.tenant_id}`, {
      roles: ["agent"],
      sub: "agent-7",
      ttl_seconds: 60,
    });
    await admin("DELETE", `/admin/roles/${t.tenant_id}/agent`);
    await admin("POST", `/admin/tenants/${t.tenant_id}/suspend`);
    await admin("POST", `/admin/tenants/${t.tenant_id}/resume`);
    await admin("POST", "/admin/reload");
    const { status, body } = await admin("GET", "/admin/audit/events?limit=7");
    expect(status).toBe(200);
    expect(body.events.map((e: { action: string }) => e.action)).toEqual([
      "secrets.reloaded",
      "tenant.resumed",
      "tenant.suspended",
      "role.deleted",
      "token.minted",
      "role.replaced",
      "role.created",
    ]);
    expect(body.events[4]).toMatchObject({
      sub: "operator",
      tenant_id: t.tenant_id,
      target: "agent-7",
      details: { roles: ["agent"], ttl_seconds: 60 },
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain(minted.body.token);
    expect(text).not.toContain(t.token);
    expect(typeof body.next_cursor).toBe("string");
    const older = await admin("GET", `/admin/audit/events?limit=1000&cursor=${body.next_cursor}`);
    expect(
      older.body.events.some(
        (e: { action: string; details: { name?: string } }) =>
          e.action === "tenant.created" && e.details.name === "Audited Co",
      ),
    ).toBe(true);
  });

  test("a tenant token cannot read it (403), and a bad cursor is a 422", async () => {
    const t = await h.createTenant();
    await expectProblem(await h.call("GET", "/admin/audit/events", { token: t.token }), 403, "forbidden");
    await expectProblem(
      await h.call("GET", "/admin/audit/events?cursor=nope", { token: h.adminToken }),
      422,
      "validation_failed",
    );
  });
});
