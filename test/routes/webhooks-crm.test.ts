/**
 * POST /webhooks/crm/{tenant_id}: signed SOAP outbound messages (SOURCES.md, `crm`), the SOAP
 * acknowledgement, the standard sObject mappings, the custom mapping file (start, SIGHUP reload)
 * and the dead-letter → mapping → replay acceptance path. Black-box through app.handle.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import {
  type CrmNote,
  crmSignature,
  deadLetters,
  enc,
  expectEntries,
  readEntry,
  replay,
  SOAP_ACK,
  setSecrets,
  soapMessage,
} from "../helpers/webhooks.ts";

let h: Harness;
let dir: string;
let mappingPath: string;

const EMPTY_MAPPING = { version: 1, events: {} };
const ORDER_MAPPING = {
  version: 1,
  events: { Order__c: { category: "fact", content: "Order {Name} shipped", tags: ["orders"] } },
};

function writeMapping(value: unknown): void {
  writeFileSync(mappingPath, typeof value === "string" ? value : JSON.stringify(value));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mrt-crm-"));
  mappingPath = join(dir, "crm-mapping.json");
  writeMapping(EMPTY_MAPPING);
  h = await startHarness({ env: { MEMORY_RUNTIME_CRM_MAPPING: mappingPath } });
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Tenant {
  id: string;
  token: string;
  secret: string;
}

async function crmTenant(extra: Record<string, string> = {}): Promise<Tenant> {
  const { tenant_id, token } = await h.createTenant();
  const secret = `crm-${crypto.randomUUID()}`;
  setSecrets(h, tenant_id, { CRM_WEBHOOK_SECRET: secret, ...extra });
  return { id: tenant_id, token, secret };
}

/** `signature: null` sends no signature header; by default the body is signed with the tenant's secret. */
function post(t: Tenant, body: string | Uint8Array, signature: string | null = crmSignature(t.secret, body)) {
  const headers: Record<string, string> = { "content-type": "text/xml; charset=utf-8" };
  if (signature !== null) headers["x-crm-signature"] = signature;
  return h.call("POST", `/webhooks/crm/${t.id}`, { raw: body, headers });
}

interface Summary {
  accepted: number;
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
  ignored: number;
}

/** Sends a signed message; checks the SOAP ack and returns the summary from X-Memory-Summary. */
async function deliver(t: Tenant, notes: CrmNote[]): Promise<Summary> {
  const res = await post(t, soapMessage(notes));
  const text = await res.text();
  expect({ status: res.status, text }).toEqual({ status: 200, text: SOAP_ACK });
  expect(res.headers.get("content-type")).toStartWith("text/xml");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  const header = res.headers.get("x-memory-summary");
  expect(header).toBeTruthy();
  const summary = JSON.parse(header!) as Summary;
  expect(Object.keys(summary).sort()).toEqual([
    "accepted",
    "dead_lettered",
    "duplicates",
    "entries",
    "ignored",
  ]);
  return summary;
}

let idSeq = 0;
const nid = () => `04l5e00000${String(++idSeq).padStart(8, "0")}`;
const src = (note: CrmNote) => ({ system: "crm", event_id: note.id, event_type: note.type });

describe("crm: signed SOAP outbound messages", () => {
  test("Opportunity, Contact, Account and Task map to their categories; the answer is the SOAP ack", async () => {
    const t = await crmTenant();
    const stage: CrmNote = {
      id: nid(),
      type: "Opportunity",
      fields: {
        Id: "0065e000001",
        Name: "Acme renewal",
        StageName: "Negotiation/Review",
        Amount: "50000",
        LastModifiedDate: "2026-11-20T10:00:00.000Z",
      },
    };
    const won: CrmNote = {
      id: nid(),
      type: "Opportunity",
      fields: {
        Id: "0065e000002",
        Name: "Globex expansion",
        StageName: "Closed Won",
        IsClosed: "true",
        IsWon: "true",
        Amount: "125000.00",
        CurrencyIsoCode: "USD",
        CloseDate: "2026-11-20",
        LastModifiedDate: "2026-11-20T11:00:00.000Z",
      },
    };
    const contact: CrmNote = {
      id: nid(),
      type: "Contact",
      fields: {
        Id: "0035e000001",
        FirstName: "Ada",
        LastName: "Lovelace",
        Email: "ada@example.com",
        AccountId: "0015e000001",
      },
    };
    const account: CrmNote = {
      id: nid(),
      type: "Account",
      fields: { Id: "0015e000001", Name: "Acme & Sons <Ltd>", Type: "Customer", Industry: "Manufacturing" },
    };
    const task: CrmNote = {
      id: nid(),
      type: "Task",
      fields: { Id: "00T5e000001", Subject: "Call back", Status: "Not Started", ActivityDate: "2026-11-25" },
    };
    const notes = [stage, won, contact, account, task];
    const summary = await deliver(t, notes);
    expect(summary).toMatchObject({ accepted: 5, duplicates: 0, dead_lettered: [], ignored: 0 });
    expect(summary.entries).toHaveLength(5);
    const categories = ["decision", "decision", "relationship", "relationship", "fact"];
    const read = [];
    for (const [i, note] of notes.entries()) {
      const [entry] = await expectEntries(h, t.token, [summary.entries[i]!], categories[i]!, src(note));
      read.push(entry!);
    }
    expect(read[0]!.stage).toBe("Negotiation/Review");
    expect(read[1]).toMatchObject({ stage: "closed_won", amount: 125000, currency: "USD" });
    expect(read[2]).toMatchObject({ subject: "Ada Lovelace", predicate: "works_at" });
    expect(read[3]!.subject).toBe("Acme & Sons <Ltd>");
    expect(read[4]!.content).toContain("Call back");
    // The raw SOAP answer still echoes the caller's request id (CONTRACT §1).
    const xml = soapMessage([{ id: nid(), type: "Task", fields: { Id: "00T5e000002", Subject: "Echo" } }]);
    const res = await h.call("POST", `/webhooks/crm/${t.id}`, {
      raw: xml,
      headers: {
        "content-type": "text/xml",
        "x-crm-signature": crmSignature(t.secret, xml),
        "x-request-id": "req-crm-42",
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-crm-42");
    expect(await res.text()).toBe(SOAP_ACK);
  });

  test("a closed case's exception supersedes the open one", async () => {
    const t = await crmTenant();
    const opened: CrmNote = {
      id: nid(),
      type: "Case",
      fields: {
        Id: "5005e000001",
        CaseNumber: "00001026",
        Subject: "Printer on fire",
        Priority: "High",
        Status: "New",
        IsClosed: "false",
        LastModifiedDate: "2026-11-20T09:00:00.000Z",
      },
    };
    const closed: CrmNote = {
      ...opened,
      id: nid(),
      fields: {
        ...opened.fields,
        Status: "Closed",
        IsClosed: "true",
        LastModifiedDate: "2026-11-20T15:00:00.000Z",
      },
    };
    const s1 = await deliver(t, [opened]);
    const [open] = await expectEntries(h, t.token, s1.entries, "exception", src(opened));
    expect(open).toMatchObject({ status: "open", severity: "high", valid_to: null, invalidated_at: null });
    const s2 = await deliver(t, [closed]);
    expect(s2).toMatchObject({ accepted: 1, duplicates: 0 });
    const [done] = await expectEntries(h, t.token, s2.entries, "exception", src(closed));
    expect(done).toMatchObject({
      status: "resolved",
      supersedes: open!.id,
      valid_from: "2026-11-20T15:00:00.000Z",
    });
    const after = await readEntry(h, t.token, "exception", open!.id);
    expect(after.valid_to).toBe("2026-11-20T15:00:00.000Z");
    expect(after.invalidated_at).toEqual(expect.any(String));
    expect(after.expired_at).toBeNull();
    expect(after.status).toBe("resolved");

    // Both states in one message: the later one still supersedes the earlier.
    const u = await crmTenant();
    const both = await deliver(u, [
      { ...opened, id: nid() },
      { ...closed, id: nid() },
    ]);
    expect(both).toMatchObject({ accepted: 2, dead_lettered: [], ignored: 0 });
    const first = await readEntry(h, u.token, "exception", both.entries[0]!);
    const second = await readEntry(h, u.token, "exception", both.entries[1]!);
    expect(second.supersedes).toBe(first.id);
    expect(first.valid_to).toBe("2026-11-20T15:00:00.000Z");
  });

  test("a closed case delivered before the case it closes: the late opening is bounded by it and resolved", async () => {
    const t = await crmTenant();
    const fields = { Id: "5005e000077", CaseNumber: "00001077", Subject: "Printer jam", Priority: "High" };
    const opened: CrmNote = {
      id: nid(),
      type: "Case",
      fields: { ...fields, Status: "New", IsClosed: "false", LastModifiedDate: "2026-11-20T09:00:00.000Z" },
    };
    const closed: CrmNote = {
      id: nid(),
      type: "Case",
      fields: { ...fields, Status: "Closed", IsClosed: "true", LastModifiedDate: "2026-11-20T15:00:00.000Z" },
    };
    const [closedId] = (await deliver(t, [closed])).entries;
    const [openedId] = (await deliver(t, [opened])).entries;
    const late = await readEntry(h, t.token, "exception", openedId!);
    expect(late).toMatchObject({ status: "resolved", valid_to: "2026-11-20T15:00:00.000Z" });
    expect((await readEntry(h, t.token, "exception", closedId!)).valid_to).toBeNull();
  });

  test("an opportunity closed lost ends its stage: the stage decision gets its valid_to and is resolved", async () => {
    const t = await crmTenant();
    const fields = { Id: "0065e000077", Name: "Initech pilot", Amount: "9000" };
    const stage: CrmNote = {
      id: nid(),
      type: "Opportunity",
      fields: { ...fields, StageName: "Proposal", LastModifiedDate: "2026-11-20T10:00:00.000Z" },
    };
    const lost: CrmNote = {
      id: nid(),
      type: "Opportunity",
      fields: {
        ...fields,
        StageName: "Closed Lost",
        IsClosed: "true",
        IsWon: "false",
        LastModifiedDate: "2026-11-21T10:00:00.000Z",
      },
    };
    const [stageId] = (await deliver(t, [stage])).entries;
    const [lostId] = (await deliver(t, [lost])).entries;
    const ended = await readEntry(h, t.token, "decision", stageId!);
    expect(ended).toMatchObject({ valid_to: "2026-11-21T10:00:00.000Z", status: "resolved" });
    expect(await readEntry(h, t.token, "decision", lostId!)).toMatchObject({
      valid_to: null,
      stage: "closed_lost",
    });
  });

  test("a bad or missing signature is a 401 problem; the org id is checked when configured", async () => {
    const t = await crmTenant({ CRM_ORG_ID: "00D5e000000AbCd" });
    const xml = soapMessage([{ id: nid(), type: "Task", fields: { Id: "00T1", Subject: "x" } }]);
    for (const sig of [
      null,
      "",
      "bm90IGEgc2lnbmF0dXJl",
      crmSignature("other", xml),
      crmSignature(t.secret, `${xml} `),
    ]) {
      const problem = await expectProblem(await post(t, xml, sig), 401, "unauthorized");
      expect(JSON.stringify(problem)).not.toContain(t.secret);
    }
    // The 18-character org id of the message shares the configured 15-character prefix.
    expect((await post(t, xml)).status).toBe(200);
    const foreign = soapMessage(
      [{ id: nid(), type: "Task", fields: { Id: "00T2", Subject: "y" } }],
      "00D5e000000ZZZZEAF",
    );
    await expectProblem(await post(t, foreign), 401, "unauthorized");
  });

  test("a second delivery writes nothing and counts duplicates", async () => {
    // Order__c is unmapped here, whatever mapping an earlier test left in force.
    writeMapping(EMPTY_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const t = await crmTenant();
    const notes: CrmNote[] = [
      { id: nid(), type: "Task", fields: { Id: "00T3", Subject: "Send quote" } },
      { id: nid(), type: "Order__c", fields: { Id: "a0X1", Name: "O-1" } },
    ];
    const first = await deliver(t, notes);
    expect(first).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [notes[1]!.id] });
    const second = await deliver(t, notes);
    expect(second).toEqual({ accepted: 0, entries: [], duplicates: 2, dead_lettered: [], ignored: 0 });
    const { body } = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
    expect(body.items).toHaveLength(1);
  });

  test("hostile bodies with a valid signature are 400/413, never 500", async () => {
    const t = await crmTenant();
    const garbage = new Uint8Array(4096);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
    const note = (id: string) =>
      `<Notification><Id>${id}</Id><sObject xsi:type="sf:Task" xmlns:sf="urn:x"><sf:Subject>s</sf:Subject></sObject></Notification>`;
    const envelope = (inner: string) =>
      `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound">${inner}</notifications></soapenv:Body></soapenv:Envelope>`;
    const cases: Record<string, string | Uint8Array> = {
      empty: "",
      whitespace: "  \n",
      truncated: soapMessage([{ id: nid(), type: "Task", fields: { Subject: "x" } }]).slice(0, 300),
      binary: garbage,
      invalidUtf8: new Uint8Array([0x3c, 0x61, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x61, 0x3e]),
      json: '{"Envelope": {}}',
      otherXml: "<Envelope><Body><other/></Body></Envelope>",
      noNotification: envelope("<OrganizationId>00D</OrganizationId>"),
      noId: envelope('<Notification><sObject xsi:type="sf:Task"/></Notification>'),
      noSObject: envelope("<Notification><Id>x1</Id></Notification>"),
      tooMany: envelope(Array.from({ length: 101 }, (_, i) => note(`n${i}`)).join("")),
      xxe: `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelope(note("x&xxe;"))}`,
      billionLaughs: `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>`,
      deeplyNested: `${"<a>".repeat(50_000)}${"</a>".repeat(50_000)}`,
      twoMiBGarbage: `<a>${"<b>x</b>".repeat((2 * 1024 * 1024) / 8)}</a>`,
    };
    for (const [name, body] of Object.entries(cases)) {
      const res = await post(t, body);
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      await expectProblem(res, 400, "bad_request");
    }
    const big = soapMessage([{ id: nid(), type: "Task", fields: { Subject: "z".repeat(2 * 1024 * 1024) } }]);
    await expectProblem(await post(t, big), 413, "payload_too_large");
    expect(await deadLetters(h, t.id)).toEqual([]);
    expect(enc(big).byteLength).toBeGreaterThan(2 * 1024 * 1024);
  });
});

describe("crm: custom mapping, dead letter and replay (the acceptance path)", () => {
  test("an unmapped sObject is dead-lettered; after a mapping reload its replay writes it once", async () => {
    writeMapping(EMPTY_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const t = await crmTenant();
    const order: CrmNote = {
      id: nid(),
      type: "Order__c",
      fields: {
        Id: "a0X5e000001",
        Name: "ORD-1001",
        Status__c: "Shipped",
        LastModifiedDate: "2026-11-21T08:00:00.000Z",
      },
    };
    const task: CrmNote = { id: nid(), type: "Task", fields: { Id: "00T9", Subject: "Follow up" } };
    const summary = await deliver(t, [order, task]);
    expect(summary).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [order.id], ignored: 0 });
    expect(summary.entries).toHaveLength(1);

    const [dead] = await deadLetters(h, t.id, "?status=dead&limit=10");
    expect(dead).toMatchObject({
      event_id: order.id,
      tenant_id: t.id,
      source: "crm",
      event_type: "Order__c",
      attempts: 1,
      status: "dead",
    });
    expect(dead!.last_error).toStartWith("unmapped_event");
    expect(dead!.received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(JSON.stringify(dead!.payload)).toContain("ORD-1001");

    // Still unmapped: the replay fails again and counts the attempt.
    const failed = await replay(h, t.id, order.id);
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual({
      event_id: order.id,
      status: "dead",
      last_error: expect.stringContaining("unmapped_event"),
    });
    const [again] = await deadLetters(h, t.id, "?status=dead");
    expect(again).toMatchObject({ event_id: order.id, attempts: 2, status: "dead" });

    // The operator names it in the mapping file and sends SIGHUP.
    writeMapping(ORDER_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const ok = await replay(h, t.id, order.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ event_id: order.id, status: "replayed" });
    expect(ok.body.entries).toHaveLength(1);
    const [entry] = await expectEntries(h, t.token, ok.body.entries, "fact", src(order));
    expect(entry!.content).toBe("Order ORD-1001 shipped");
    expect(entry!.tags).toContain("orders");

    expect(await deadLetters(h, t.id, "?status=dead")).toEqual([]);
    const [replayed] = await deadLetters(h, t.id, "?status=replayed");
    expect(replayed).toMatchObject({ event_id: order.id, status: "replayed", attempts: 3 });

    // A further replay answers replayed again and writes nothing more.
    const twice = await replay(h, t.id, order.id);
    expect(twice.body).toEqual({ event_id: order.id, status: "replayed", entries: ok.body.entries });
    const facts = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
    expect(facts.body.items).toHaveLength(2);
    // The platform resending the original message is a duplicate, not a second write.
    expect(await deliver(t, [order])).toEqual({
      accepted: 0,
      entries: [],
      duplicates: 1,
      dead_lettered: [],
      ignored: 0,
    });
    // New orders now map on arrival.
    const next: CrmNote = { id: nid(), type: "Order__c", fields: { Id: "a0X5e000002", Name: "ORD-1002" } };
    const s = await deliver(t, [next]);
    const [fresh] = await expectEntries(h, t.token, s.entries, "fact", src(next));
    expect(fresh!.content).toBe("Order ORD-1002 shipped");
  });

  test("concurrent replays of one dead letter write it once", async () => {
    // Its own runtime, with a clock that moves on every reading (as a busy server's does between
    // requests), so each replay's entry gets its own valid_from and a second write would show.
    const own = mkdtempSync(join(tmpdir(), "mrt-crm-race-"));
    const path = join(own, "mapping.json");
    writeFileSync(path, JSON.stringify(EMPTY_MAPPING));
    let last = 0;
    const clock = { ...systemClock, now: () => (last = Math.max(Date.now(), last + 1)) };
    const r = await startHarness({
      env: { MEMORY_RUNTIME_CRM_MAPPING: path },
      dataDir: join(own, "data"),
      clock,
    });
    try {
      const { tenant_id, token } = await r.createTenant();
      const secret = `crm-${crypto.randomUUID()}`;
      setSecrets(r, tenant_id, { CRM_WEBHOOK_SECRET: secret });
      const order: CrmNote = { id: nid(), type: "Order__c", fields: { Id: "a0X6", Name: "ORD-C" } };
      const xml = soapMessage([order]);
      const res = await r.call("POST", `/webhooks/crm/${tenant_id}`, {
        raw: xml,
        headers: { "content-type": "text/xml", "x-crm-signature": crmSignature(secret, xml) },
      });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.headers.get("x-memory-summary")!).dead_lettered).toEqual([order.id]);
      writeFileSync(path, JSON.stringify(ORDER_MAPPING));
      expect((await r.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
      const replies = await Promise.all([1, 2, 3].map(() => replay(r, tenant_id, order.id)));
      for (const reply of replies)
        expect(reply.body).toMatchObject({ event_id: order.id, status: "replayed" });
      // Every caller is told about the same single entry, and only one was written.
      expect(new Set(replies.map((reply) => JSON.stringify(reply.body.entries))).size).toBe(1);
      const facts = await r.json("GET", "/memory/facts?limit=500", { token });
      expect(facts.body.items).toHaveLength(1);
      const [record] = await deadLetters(r, tenant_id, "?status=replayed");
      expect(record).toMatchObject({ event_id: order.id, entries: replies[0]!.body.entries });
    } finally {
      await r.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  test("a mapped type whose placeholder field is missing is dead-lettered as missing_field", async () => {
    writeMapping(ORDER_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const t = await crmTenant();
    const order: CrmNote = { id: nid(), type: "Order__c", fields: { Id: "a0X7" } };
    const summary = await deliver(t, [order]);
    expect(summary.dead_lettered).toEqual([order.id]);
    const [dead] = await deadLetters(h, t.id);
    expect(dead!.last_error).toContain("missing_field");
  });

  test("a bad file on reload is refused and the old mapping stays in force", async () => {
    writeMapping(ORDER_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const t = await crmTenant();
    const bad: Array<[unknown, RegExp]> = [
      ["{ not json", /not valid JSON/],
      [{ version: 2, events: {} }, /version/],
      [{ version: 1, events: { Order__c: { category: "note", content: "x" } } }, /category/],
      [{ version: 1, events: { Order__c: { category: "fact" } } }, /content/],
      [{ version: 1, events: { Order__c: { category: "fact", content: "x", extra: 1 } } }, /Order__c/],
      [
        { version: 1, events: { Order__c: { category: "relationship", content: "x" } } },
        /subject|predicate|object/,
      ],
      [
        {
          version: 1,
          events: { Order__c: { category: "fact", content: "x", fields: { severity: "high" } } },
        },
        /severity/,
      ],
    ];
    for (const [file, fault] of bad) {
      writeMapping(file);
      const reason = (await h.runtime.reload()).crm_mapping.error;
      expect(reason).toEqual(expect.any(String));
      expect(reason!).toMatch(fault);
      expect(reason!).toContain(mappingPath);
    }
    unlinkSync(mappingPath);
    expect((await h.runtime.reload()).crm_mapping.error).toMatch(/cannot read/);
    // The previous mapping is still the one applied.
    const order: CrmNote = { id: nid(), type: "Order__c", fields: { Id: "a0X8", Name: "ORD-7" } };
    const s = await deliver(t, [order]);
    expect(s).toMatchObject({ accepted: 1, dead_lettered: [], ignored: 0 });
    const [entry] = await expectEntries(h, t.token, s.entries, "fact", src(order));
    expect(entry!.content).toBe("Order ORD-7 shipped");
    writeMapping(EMPTY_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
  });

  test("a bad mapping file at start stops the start with a message naming the fault", async () => {
    const cases: Array<[string | undefined, RegExp]> = [
      ['{"version": 1, "events": {"Order__c": {"category": "memo", "content": "x"}}}', /category/],
      ["[1, 2", /not valid JSON/],
      ['{"version": 1}', /events/],
      [undefined, /cannot read/],
    ];
    for (const [text, fault] of cases) {
      const startDir = mkdtempSync(join(tmpdir(), "mrt-crm-start-"));
      const path = join(startDir, "mapping.json");
      if (text !== undefined) writeFileSync(path, text);
      try {
        const start = startHarness({
          env: { MEMORY_RUNTIME_CRM_MAPPING: path },
          dataDir: join(startDir, "data"),
        });
        await expect(start).rejects.toThrow(fault);
        await start.catch((error: Error) => expect(error.message).toContain(path));
      } finally {
        rmSync(startDir, { recursive: true, force: true });
      }
    }
  });

  test("entries, dead letters and dedupe survive a restart", async () => {
    writeMapping(EMPTY_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
    const t = await crmTenant();
    const task: CrmNote = { id: nid(), type: "Task", fields: { Id: "00TR", Subject: "Durable" } };
    const order: CrmNote = { id: nid(), type: "Order__c", fields: { Id: "a0XR", Name: "ORD-R" } };
    const s = await deliver(t, [task, order]);
    expect(s).toMatchObject({ accepted: 1, dead_lettered: [order.id], ignored: 0 });
    await h.restart();
    await readEntry(h, t.token, "fact", s.entries[0]!);
    expect(await deliver(t, [task, order])).toEqual({
      accepted: 0,
      entries: [],
      duplicates: 2,
      dead_lettered: [],
      ignored: 0,
    });
    // The mapping file is read at start: the restarted runtime maps what it names.
    writeMapping(ORDER_MAPPING);
    await h.restart();
    const ok = await replay(h, t.id, order.id);
    expect(ok.body).toMatchObject({ event_id: order.id, status: "replayed" });
    await expectEntries(h, t.token, ok.body.entries, "fact", src(order));
    writeMapping(EMPTY_MAPPING);
    expect((await h.runtime.reload()).crm_mapping).toEqual({ reloaded: true });
  });
});
