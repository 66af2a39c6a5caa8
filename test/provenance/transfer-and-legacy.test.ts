/**
 * Origin and trust across an export and an import (kept as they were, never restamped by the
 * importing operator), and entries of before origins were stamped: an export of such a vault has
 * none, and a read derives them from the record (`legacy`; a connector's entry stays verified).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { acceptData, postDataEvent } from "./verified-events.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies and lines are read field by field
type Json = any;

let h: Harness;
let source: { tenant_id: string; token: string };
let exported: Json[];

const NDJSON = { "content-type": "application/x-ndjson" };
const lines = (text: string): Json[] =>
  text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
const joined = (records: Json[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;

/** A fresh tenant holding the import of `records`, and its token. */
async function importedTenant(records: Json[]): Promise<{ tenant_id: string; token: string }> {
  const t = await h.createTenant();
  const res = await h.call("POST", `/admin/tenants/${t.tenant_id}/import`, {
    token: h.adminToken,
    raw: joined(records),
    headers: NDJSON,
  });
  expect(res.status).toBe(200);
  return t;
}

async function entriesOf(t: { token: string }): Promise<Map<string, Json>> {
  const { body } = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
  return new Map(body.items.map((e: Json) => [e.id, e]));
}

beforeAll(async () => {
  h = await startHarness();
  source = await h.createTenant();
  acceptData(h, source.tenant_id);
  await postDataEvent(h, source.tenant_id);
  await h.call("POST", "/memory/facts", {
    token: source.token,
    body: { content: "The operator's own note" },
  });
  const exportRes = await h.call("GET", `/admin/tenants/${source.tenant_id}/export`, { token: h.adminToken });
  exported = lines(await exportRes.text());
});
afterAll(() => h.close());

describe("export and import", () => {
  test("an import keeps every entry's origin and trust, whoever imports it", async () => {
    const before = await entriesOf(source);
    expect([...before.values()].map((e) => e.trust).sort()).toEqual(["operator", "verified"]);
    const copy = await importedTenant(exported);
    const after = await entriesOf(copy);
    expect(after.size).toBe(before.size);
    for (const [id, entry] of before) {
      expect({ origin: after.get(id).origin, trust: after.get(id).trust }).toEqual({
        origin: entry.origin,
        trust: entry.trust,
      });
    }
  });

  test("an export's entry lines carry origin and trust", () => {
    const entries = exported.filter((r) => r.type === "entry");
    expect(entries.length).toBe(2);
    for (const r of entries)
      expect(Object.keys(r.value.entry)).toEqual(expect.arrayContaining(["origin", "trust"]));
  });
});

describe("entries stored before origins were stamped", () => {
  test("an export of before has none; a read derives a legacy origin from the record", async () => {
    const legacy = exported.map((r) => {
      if (r.type !== "entry") return r;
      const { origin: _origin, trust: _trust, ...entry } = r.value.entry;
      return { ...r, value: { ...r.value, entry } };
    });
    const copy = await importedTenant(legacy);
    const after = [...(await entriesOf(copy)).values()];
    const connector = after.find((e) => e.created_by === "connector:data");
    expect({ origin: connector.origin, trust: connector.trust }).toEqual({
      origin: { kind: "legacy", created_by: "connector:data", source: "data" },
      trust: "verified",
    });
    const token = after.find((e) => e.created_by !== "connector:data");
    expect({ origin: token.origin, trust: token.trust }).toEqual({
      origin: { kind: "legacy", created_by: token.created_by },
      trust: "agent",
    });
  });

  test("a token's body naming a source is not a connector's entry: legacy trust stays an agent's", async () => {
    const forged = exported.map((r) => {
      if (r.type !== "entry" || r.value.entry.created_by === "connector:data") return r;
      const { origin: _o, trust: _t, ...entry } = r.value.entry;
      return { ...r, value: { ...r.value, entry: { ...entry, source: { system: "data", event_id: "x" } } } };
    });
    const copy = await importedTenant(forged);
    const mine = [...(await entriesOf(copy)).values()].find((e) => e.created_by !== "connector:data");
    expect(mine.trust).toBe("agent");
    expect(mine.origin).toEqual({ kind: "legacy", created_by: mine.created_by, source: "data" });
  });
});
