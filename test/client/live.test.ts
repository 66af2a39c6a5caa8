/**
 * The typed client (client/, `typed-memory-runtime/client`) against a live listening server: the
 * app on a loopback port (Bun.serve), every answer also checked against the OpenAPI document.
 * A tenant is created, a fact and a decision written and read back with their category's types,
 * searched, corrected and retracted; a CRM delivery nobody mapped becomes a dead letter, listed
 * and replayed once the mapping names it; errors come back as the problem document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createClient, type MemoryClient } from "typed-memory-runtime/client";
import type { Harness } from "../helpers/harness.ts";
import {
  type CrmNote,
  crmSignature,
  type MappedHarness,
  SOAP_ACK,
  setSecrets,
  soapMessage,
  startWithCrmMapping,
} from "../helpers/webhooks.ts";
import { type LiveServer, serveHarness } from "./live-server.ts";

let setup: MappedHarness;
let h: Harness;
let live: LiveServer;
let base: string;
let admin: MemoryClient;

beforeAll(async () => {
  setup = await startWithCrmMapping("mrt-client-");
  h = setup.h;
  live = serveHarness(h);
  base = live.base;
  admin = createClient({ baseUrl: base, token: h.adminToken });
});

afterAll(async () => {
  await live.stop();
  await setup.close();
});

/** A new tenant through the client, and a client holding its first token. */
async function newTenant(name: string): Promise<{ id: string; client: MemoryClient }> {
  const { data, error } = await admin.admin.tenants.create({ name: `${name} ${crypto.randomUUID()}` });
  if (error) throw new Error(`create tenant: ${error.status} ${error.code}`);
  return { id: data.tenant_id, client: createClient({ baseUrl: base, token: data.token }) };
}

describe("the client against a live server", () => {
  test("creates a tenant and lists it; the tenant token sees itself", async () => {
    const {
      data: created,
      error,
      response,
    } = await admin.admin.tenants.create({ name: `Client Co ${Date.now()}` });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(created!.roles).toEqual(["tenant_admin"]);
    const tenant = createClient({ baseUrl: base, token: created!.token });

    const me = await tenant.tenants.me();
    expect(me.data).toMatchObject({ tenant_id: created!.tenant_id, roles: ["tenant_admin"], admin: false });
    const listed = await admin.admin.tenants.list({ limit: 1000 });
    expect(listed.data!.tenants.map((t) => t.tenant_id)).toContain(created!.tenant_id);
    const health = await tenant.tenants.health(created!.tenant_id);
    expect(health.data).toMatchObject({ tenant_id: created!.tenant_id, vault: { present: true } });

    const minted = await admin.admin.tokens.mint(created!.tenant_id, {
      roles: ["tenant_admin"],
      sub: "agent-7",
    });
    expect(minted.response.status).toBe(201);
    const agent = createClient({ baseUrl: base, token: () => minted.data!.token });
    expect((await agent.tenants.me()).data).toMatchObject({ sub: "agent-7" });
  });

  test("writes a fact and a decision, reads them back typed, lists, searches and pages", async () => {
    const { client } = await newTenant("Writes");
    const fact = await client.memory.write("fact", {
      content: "Acme renews its contract in March",
      tags: ["acme"],
    });
    expect(fact.response.status).toBe(201);
    expect(fact.response.headers.get("location")).toBe(`/memory/facts/${fact.data!.id}`);
    // The category's own type: `category` is the literal "fact".
    const factCategory: "fact" = fact.data!.category;
    expect(factCategory).toBe("fact");

    const decision = await client.memory.write(
      "decision",
      { content: "Offer Acme a two-year renewal", data: { rationale: "renews every year" } },
      { idempotencyKey: "decide-acme-1" },
    );
    expect(decision.response.status).toBe(201);
    const again = await client.memory.write(
      "decision",
      { content: "Offer Acme a two-year renewal", data: { rationale: "renews every year" } },
      { idempotencyKey: "decide-acme-1" },
    );
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data!.id).toBe(decision.data!.id);

    const read = await client.memory.get("fact", fact.data!.id);
    expect(read.data).toMatchObject({ id: fact.data!.id, category: "fact", content: fact.data!.content });
    const readDecision = await client.memory.get("decision", decision.data!.id);
    expect(readDecision.data!.data).toEqual({ rationale: "renews every year" });

    const page = await client.memory.list("fact", { limit: 10, tag: "acme" });
    expect(page.data!.items.map((e) => e.id)).toEqual([fact.data!.id]);
    expect(page.data!.next_cursor).toBeNull();

    const found = await client.search({ query: "Acme renewal contract", categories: ["fact", "decision"] });
    expect(found.error).toBeUndefined();
    expect(found.data!.results.map((r) => r.entry.id).sort()).toEqual(
      [fact.data!.id, decision.data!.id].sort(),
    );
  });

  test("reads what the tenant knows about an entity; an unknown one is a 404 problem", async () => {
    const { client } = await newTenant("Entities");
    await client.memory.write("relationship", {
      content: "Initech buys paper from Dunder Mifflin",
      subject: "Initech",
      predicate: "buys from",
      object: "Dunder Mifflin",
    });
    const known = await client.memory.entity("Dunder Mifflin", { limit: 5 });
    expect(known.error).toBeUndefined();
    expect(known.data!.entity.name).toBe("Dunder Mifflin");
    expect(known.data!.relationships.map((r) => [r.direction, r.other])).toEqual([["incoming", "Initech"]]);
    const unknown = await client.memory.entity("Vandelay Industries");
    expect(unknown.error).toMatchObject({ status: 404, code: "not_found" });
  });

  test("batch writes answer each item's status; near-duplicates come back as `similar`", async () => {
    const { client } = await newTenant("Batch");
    const batch = await client.memory.writeBatch("fact", [
      { content: "Globex pays by wire transfer" },
      { content: "Globex is based in Springfield" },
      { content: "Globex pays by wire transfer" },
    ]);
    expect(batch.response.status).toBe(201);
    expect(batch.data!.statuses).toEqual([201, 201, 200]);
    expect(batch.data!.entries[0]!.id).toBe(batch.data!.entries[2]!.id);

    const deduped = await client.memory.write(
      "fact",
      { content: "Globex pays by wire transfer." },
      { dedupe: "similar" },
    );
    expect(deduped.response.status).toBe(200);
    expect(deduped.data!.id).toBe(batch.data!.entries[0]!.id);
    const near = await client.memory.write("fact", { content: "Globex pays by a wire transfer" });
    expect(near.response.status).toBe(201);
    expect(near.data!.similar?.[0]?.id).toBe(batch.data!.entries[0]!.id);
  });

  test("corrects and retracts; the history shows both", async () => {
    const { client } = await newTenant("History");
    const wrong = await client.memory.write("fact", { content: "Initech renews in April" });
    const right = await client.memory.correct("fact", wrong.data!.id, { content: "Initech renews in May" });
    expect(right.response.status).toBe(201);
    expect(right.data!.corrects).toBe(wrong.data!.id);
    const history = await client.memory.history("fact", right.data!.id);
    expect(history.data!.versions.map((v) => v.id)).toEqual([wrong.data!.id, right.data!.id]);
    expect(history.data!.events.map((e) => e.type)).toEqual(["created", "corrects"]);
    const before = await client.memory.history("fact", wrong.data!.id);
    expect(before.data!.events.map((e) => e.type)).toEqual(["created", "corrected_by"]);

    const retracted = await client.memory.retract("fact", right.data!.id);
    expect(retracted.error).toBeUndefined();
    const after = await client.memory.history("fact", right.data!.id);
    expect(after.data!.events.map((e) => e.type)).toContain("retracted");
    expect((await client.memory.get("fact", right.data!.id)).data!.expired_at).not.toBeNull();
    expect((await client.memory.list("fact")).data!.items).toEqual([]);
  });

  test("errors are the problem document: validation, not found, forbidden, no token", async () => {
    const { client } = await newTenant("Errors");
    // biome-ignore lint/suspicious/noExplicitAny: a body the types refuse, sent to see the server refuse it too
    const invalid = await client.memory.write("fact", { content: "", unknown_field: 1 } as any);
    expect(invalid.data).toBeUndefined();
    expect(invalid.error).toMatchObject({
      status: 422,
      code: "validation_failed",
      type: "/problems/validation_failed",
    });
    expect(invalid.error!.errors!.length).toBeGreaterThan(0);
    expect(invalid.error!.request_id).toBe(invalid.response.headers.get("x-request-id")!);

    const missing = await client.memory.get("fact", "0badc0de");
    expect(missing.error).toMatchObject({ status: 404, code: "not_found" });
    const forbidden = await client.admin.deadLetters.list("01JDB2X6J3KQ5W8Z3M4N7P9R2S");
    expect(forbidden.error).toMatchObject({ status: 403, code: "forbidden" });
    const anonymous = createClient({ baseUrl: base });
    expect((await anonymous.tenants.me()).error).toMatchObject({ status: 401, code: "unauthorized" });
  });

  test("an error answer that is not a problem document becomes one", async () => {
    const proxy = createClient({
      baseUrl: base,
      fetch: async () =>
        new Response("<html>Bad gateway</html>", { status: 502, headers: { "x-request-id": "px-1" } }),
    });
    const { data, error } = await proxy.tenants.me();
    expect(data).toBeUndefined();
    expect(error).toEqual({
      type: "about:blank",
      title: "HTTP 502",
      status: 502,
      detail: "<html>Bad gateway</html>",
      code: "unexpected_response",
      request_id: "px-1",
    });
    const empty = createClient({ baseUrl: base, fetch: async () => new Response(null, { status: 503 }) });
    expect((await empty.GET("/tenants/me")).error).toMatchObject({
      status: 503,
      code: "unexpected_response",
    });
  });

  test("the path-typed methods reach every route: GET and POST by template", async () => {
    const { id, client } = await newTenant("Raw");
    const decided = await client.POST("/memory/decisions", { body: { content: "Offer a two-year renewal" } });
    const written = await client.POST("/memory/outcomes", {
      body: { content: "Renewal closed at 120k", decision_id: decided.data!.id, result: "success" },
    });
    expect(written.data!.category).toBe("outcome");
    const read = await client.GET("/memory/outcomes/{sha8}", {
      params: { path: { sha8: written.data!.id } },
    });
    expect(read.data!.content).toBe("Renewal closed at 120k");
    const roles = await admin.GET("/admin/roles/{tenant_id}", { params: { path: { tenant_id: id } } });
    expect(roles.data!.roles[0]!.name).toBe("tenant_admin");
  });
});

describe("dead letters through the client", () => {
  const ORDER: CrmNote = {
    id: "04l5e00000CLIENT1",
    type: "Order__c",
    fields: { Id: "a0X5e000009", Name: "ORD-2001", LastModifiedDate: "2026-11-21T08:00:00.000Z" },
  };

  /** Delivers a signed CRM outbound message, as the platform would, to the live server. */
  async function deliverCrm(tenantId: string, secret: string, notes: CrmNote[]): Promise<void> {
    const xml = soapMessage(notes);
    const res = await fetch(`${base}/webhooks/crm/${tenantId}`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", "x-crm-signature": crmSignature(secret, xml) },
      body: xml,
    });
    expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: SOAP_ACK });
  }

  test("an unmapped event is listed, fails a replay, and is replayed once the mapping names it", async () => {
    const { id, client } = await newTenant("Dead letters");
    const secret = `crm-${crypto.randomUUID()}`;
    setSecrets(h, id, { CRM_WEBHOOK_SECRET: secret });
    await deliverCrm(id, secret, [ORDER]);

    const listed = await admin.admin.deadLetters.list(id, { status: "dead", limit: 10 });
    expect(listed.data!.dead_letters).toHaveLength(1);
    expect(listed.data!.dead_letters[0]).toMatchObject({
      event_id: ORDER.id,
      source: "crm",
      event_type: "Order__c",
      status: "dead",
      attempts: 1,
    });
    expect(listed.data!.dead_letters[0]!.last_error).toStartWith("unmapped_event");

    const failed = await admin.admin.deadLetters.replay(id, ORDER.id);
    expect(failed.data).toMatchObject({ event_id: ORDER.id, status: "dead" });

    writeFileSync(
      setup.mappingPath,
      JSON.stringify({
        version: 1,
        events: { Order__c: { category: "fact", content: "Order {Name} shipped" } },
      }),
    );
    const reloaded = await admin.POST("/admin/reload");
    expect(reloaded.data!.crm_mapping).toEqual({ reloaded: true });
    const replayed = await admin.admin.deadLetters.replay(id, ORDER.id, { source: "crm" });
    expect(replayed.data).toMatchObject({ event_id: ORDER.id, status: "replayed" });
    const [entryId] = replayed.data!.entries!;
    expect((await client.memory.get("fact", entryId!)).data!.content).toBe("Order ORD-2001 shipped");
    const after = await admin.admin.deadLetters.list(id, { status: "replayed" });
    expect(after.data!.dead_letters.map((d) => [d.event_id, d.attempts])).toEqual([[ORDER.id, 3]]);
  });

  test("a letter that can never succeed is discarded: listed as such, and a replay of it is a 409", async () => {
    const { id } = await newTenant("Discard");
    const secret = `crm-${crypto.randomUUID()}`;
    setSecrets(h, id, { CRM_WEBHOOK_SECRET: secret });
    // A type no mapping of these tests names.
    const invoice = { ...ORDER, id: "04l5e00000CLIENT2", type: "Invoice__c" };
    await deliverCrm(id, secret, [invoice]);
    const discarded = await admin.admin.deadLetters.discard(id, invoice.id, { source: "crm" });
    expect(discarded.data).toMatchObject({ event_id: invoice.id, source: "crm", status: "discarded" });
    const listed = await admin.admin.deadLetters.list(id, { status: "discarded" });
    expect(listed.data!.dead_letters.map((d) => d.event_id)).toEqual([invoice.id]);
    const refused = await admin.admin.deadLetters.replay(id, invoice.id);
    expect(refused.error).toMatchObject({ status: 409, code: "conflict" });
  });
});

test("every answer the client received conforms to the OpenAPI document", () => {
  expect(live.nonConforming).toEqual([]);
});
