/**
 * Erasure through a real listening server: the erased text is gone from every file of the tenant's
 * directory (grepped byte for byte), from answers, search and dead letters, and stays gone after a
 * restart and a redelivery.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  server.stop(true);
  await h.close();
});

async function api(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The files of the tenant's directory that contain `needle` (as UTF-8 bytes). */
function filesHolding(tenantId: string, needle: string): string[] {
  const dir = tenantDir(h.dataDir, tenantId);
  const bytes = Buffer.from(needle, "utf8");
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(bytes)) found.push(name);
    }
  };
  walk(dir);
  return found;
}

async function deliverPayment(tenantId: string, body: string) {
  const url = `${base}/webhooks/payments/${tenantId}`;
  const signed = await paymentsSender.sign(body, { now: Date.now(), url });
  const res = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body });
  return { status: res.status, body: (await res.json()) as { dead_lettered: string[]; duplicates: number } };
}

describe("POST /admin/tenants/{tenant_id}/erase", () => {
  test("a subject's text leaves no trace in the tenant's files, answers, search or dead letters", async () => {
    const { tenant_id, token } = await h.createTenant();
    setSecrets(h, tenant_id, paymentsSender.secrets);
    const SUBJECT = "Zanzibar Quokkaworth";
    const keep = await api("POST", "/memory/facts", token, { content: "Acme pays net 30" });
    const fact = await api(
      "POST",
      "/memory/facts",
      token,
      { content: `${SUBJECT} prefers email` },
      { "idempotency-key": "k-1" },
    );
    const rel = await api("POST", "/memory/relationships", token, {
      content: "works at Acme",
      subject: SUBJECT,
      predicate: "works_at",
      object: "Acme",
    });
    const noted = await api("POST", "/memory/decisions", token, {
      content: "call back",
      data: { who: SUBJECT },
    });
    expect([keep.status, fact.status, rel.status, noted.status]).toEqual([201, 201, 201, 201]);
    // A dead letter whose payload names the subject: delivered while the tenant is suspended.
    await api("POST", `/admin/tenants/${tenant_id}/suspend`, h.adminToken);
    const event = stripeEvent("payment_intent.succeeded", {
      id: "pi_z",
      amount: 5,
      currency: "usd",
      description: SUBJECT,
    });
    expect((await deliverPayment(tenant_id, event)).body.dead_lettered).toHaveLength(1);
    await api("POST", `/admin/tenants/${tenant_id}/resume`, h.adminToken);
    // The test can fail: the text is in the files before.
    expect(filesHolding(tenant_id, SUBJECT)).toContain("data.mdb");

    const dry = await api("POST", `/admin/tenants/${tenant_id}/erase`, h.adminToken, {
      subject: "zanzibar quokkaworth",
      dry_run: true,
    });
    expect(dry.body).toMatchObject({
      dry_run: true,
      dead_letters_removed: 1,
      idempotency_records_removed: 1,
    });
    expect(dry.body.erased).toHaveLength(3);
    expect(filesHolding(tenant_id, SUBJECT)).toContain("data.mdb");

    const erased = await api("POST", `/admin/tenants/${tenant_id}/erase`, h.adminToken, {
      subject: "zanzibar quokkaworth",
    });
    expect(erased.status).toBe(200);
    expect(erased.body.erased.map((e: { id: string }) => e.id).sort()).toEqual(
      [fact.body.id, rel.body.id, noted.body.id].sort(),
    );
    expect(erased.body).toMatchObject({
      dead_letters_removed: 1,
      idempotency_records_removed: 1,
      dry_run: false,
    });
    expect(filesHolding(tenant_id, SUBJECT)).toEqual([]);

    // Answers: 410 with the tombstone's time; the kept entry is untouched; search finds nothing.
    const gone = await api("GET", `/memory/facts/${fact.body.id}`, token);
    expect(gone.status).toBe(410);
    expect(gone.body.detail).toContain(erased.body.erased_at);
    expect((await api("GET", `/memory/facts/${keep.body.id}`, token)).body.content).toBe("Acme pays net 30");
    const search = await api("POST", "/memory/search", token, { query: SUBJECT });
    expect(JSON.stringify(search.body)).not.toContain("Quokkaworth");
    const letters = await api("GET", `/admin/webhooks/dead-letters/${tenant_id}`, h.adminToken);
    expect(letters.body.dead_letters).toEqual([]);
    const trail = await api("GET", `/memory/facts/${fact.body.id}/history`, token);
    expect(trail.body).toMatchObject({ erased_at: erased.body.erased_at });
    expect(trail.body.events.map((e: { type: string }) => e.type)).toEqual(["created", "erased"]);
    // Who wrote it outlives the entry: the tombstone keeps it (the log indexes no creation).
    expect(trail.body.events[0].by).toBe(fact.body.created_by);
    // The idempotency key no longer answers the erased entry: a retry writes afresh.
    const retried = await api(
      "POST",
      "/memory/facts",
      token,
      { content: "replacement" },
      { "idempotency-key": "k-1" },
    );
    expect(retried.status).toBe(201);
    // A redelivery of the dead-lettered event is a duplicate: erased content does not come back.
    expect((await deliverPayment(tenant_id, event)).body).toMatchObject({ duplicates: 1, accepted: 0 });

    // After a restart: still gone, and the tenant works.
    await h.restart();
    expect(filesHolding(tenant_id, SUBJECT)).toEqual([]);
    const health = await api("GET", `/tenants/${tenant_id}/healthz`, token);
    expect(health.body.vault.entries).toBe(2);
    expect((await api("GET", `/memory/relationships/${rel.body.id}`, token)).status).toBe(410);
  });

  test("by ids and by tags; ids already erased are reported; the entry counts follow", async () => {
    const { tenant_id, token } = await h.createTenant();
    const a = await api("POST", "/memory/facts", token, { content: "alpha", tags: ["temp"] });
    const b = await api("POST", "/memory/facts", token, { content: "beta", tags: ["temp", "x"] });
    const c = await api("POST", "/memory/workflows", token, { content: "gamma" });
    const byTag = await api("POST", `/admin/tenants/${tenant_id}/erase`, h.adminToken, { tags: ["temp"] });
    expect(byTag.body.erased.map((e: { id: string }) => e.id).sort()).toEqual([a.body.id, b.body.id].sort());
    const byId = await api("POST", `/admin/tenants/${tenant_id}/erase`, h.adminToken, {
      ids: [c.body.id, a.body.id],
    });
    expect(byId.body).toMatchObject({
      erased: [{ id: c.body.id, category: "workflow" }],
      already_erased: [a.body.id],
    });
    const list = await api("GET", "/memory/facts?tag=temp", token);
    expect(list.body.items).toEqual([]);
    expect((await api("GET", `/tenants/${tenant_id}/healthz`, token)).body.vault.entries).toBe(0);
    expect((await api("POST", "/memory/facts", token, { content: "after" })).status).toBe(201);
  });

  test("bad requests: unknown ids 404 (nothing erased), no criteria 422, a short subject 422, tenant token 403, unknown tenant 404", async () => {
    const { tenant_id, token } = await h.createTenant();
    const a = await api("POST", "/memory/facts", token, { content: "stays" });
    const path = `/admin/tenants/${tenant_id}/erase`;
    await expectProblem(
      await h.call("POST", path, { token: h.adminToken, body: { ids: [a.body.id, "00000000"] } }),
      404,
      "not_found",
    );
    expect((await api("GET", `/memory/facts/${a.body.id}`, token)).status).toBe(200);
    for (const body of [
      {},
      { dry_run: true },
      { subject: "ab" },
      { ids: [] },
      { ids: ["../x"] },
      { tags: "temp" },
      { extra: 1 },
    ]) {
      await expectProblem(
        await h.call("POST", path, { token: h.adminToken, body }),
        422,
        "validation_failed",
      );
    }
    await expectProblem(await h.call("POST", path, { token, body: { ids: [a.body.id] } }), 403, "forbidden");
    await expectProblem(
      await h.call("POST", "/admin/tenants/01JDB2X6J3KQ5W8Z3M4N7P9R2S/erase", {
        token: h.adminToken,
        body: { ids: [a.body.id] },
      }),
      404,
      "not_found",
    );
    const audit = await api("GET", "/admin/audit/events", h.adminToken);
    expect(JSON.stringify(audit.body)).not.toContain("Quokkaworth");
  });
});
