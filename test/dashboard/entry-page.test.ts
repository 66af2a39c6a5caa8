/**
 * An entry's dashboard page (`GET /admin/dashboard/tenants/{tenant_id}/entries/{category}/{id}`),
 * black-box through app.handle: who may see it, what it shows (fields, origin, validity, versions,
 * history, links both ways), hostile content escaped, and every address naming no entry of this
 * tenant (a bad id, a bad category, another tenant's entry) a 404 page, never a 500.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const STARTED_AT = Date.UTC(2026, 10, 23, 12, 0, 0);
const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)> & "q"`;

let clock: ManualClock;
let h: Harness;
beforeEach(async () => {
  clock = new ManualClock(STARTED_AT);
  h = await startHarness({ clock });
});
afterEach(() => h.close());

const entryPath = (tenantId: string, category: string, id: string) =>
  `/admin/dashboard/tenants/${tenantId}/entries/${category}/${id}`;

async function write(token: string, plural: string, body: Record<string, unknown>): Promise<string> {
  const { status, body: entry } = await h.json("POST", `/memory/${plural}`, { token, body });
  expect(status).toBe(201);
  return entry.id;
}

async function entryPage(path: string, token = h.adminToken) {
  const res = await h.call("GET", path, { token });
  return { res, text: await res.text() };
}

describe("GET …/entries/{category}/{id}", () => {
  test("a fact that was superseded: fields, origin, validity, versions, history, links both ways", async () => {
    const t = await h.createTenant();
    const first = await write(t.token, "facts", { content: "Acme pays net 30", tags: ["billing"] });
    clock.advance(60_000);
    const second = await write(t.token, "facts", { content: "Acme pays net 45", supersedes: first });
    const { res, text } = await entryPage(entryPath(t.tenant_id, "fact", first));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(text).toContain('data-field="content">Acme pays net 30</p>');
    expect(text).toContain('<span class="tag">billing</span>');
    expect(text).toMatch(/<th>trust<\/th><td><b data-trust="\w+">/);
    expect(text).toContain("<th>valid from</th><td>2026-11-23T12:00:00");
    expect(text).toMatch(/<th>superseded at<\/th><td>2026-11-23T12:01:00/);
    expect(text).toContain("<th>expired at</th><td>not retracted or corrected</td>");
    const link = `href="${entryPath(t.tenant_id, "fact", second)}"`;
    expect(text).toContain(`<li data-relation="superseded_by">superseded by <a ${link}`);
    expect(text).toContain(`<tr data-version="${second}"><td><a ${link}`);
    expect(text).toContain(`<tr data-version="${first}" class="current">`);
    // The newer one links back to what it supersedes.
    const newer = await entryPage(entryPath(t.tenant_id, "fact", second));
    expect(newer.text).toContain(
      `<li data-relation="supersedes">supersedes <a href="${entryPath(t.tenant_id, "fact", first)}"`,
    );
    expect(newer.text).toContain("<th>superseded at</th><td>not superseded</td>");
  });

  test("an outcome resolves its decision: each links to the other", async () => {
    const t = await h.createTenant();
    const decision = await write(t.token, "decisions", { content: "Offer 10%" });
    const outcome = await write(t.token, "outcomes", {
      content: "Accepted",
      decision_id: decision,
      result: "success",
    });
    const o = await entryPage(entryPath(t.tenant_id, "outcome", outcome));
    expect(o.text).toContain(
      `<li data-relation="resolves">resolves <a href="${entryPath(t.tenant_id, "decision", decision)}"`,
    );
    expect(o.text).toContain("<th>result</th><td>success</td>");
    const d = await entryPage(entryPath(t.tenant_id, "decision", decision));
    expect(d.text).toContain(`href="${entryPath(t.tenant_id, "outcome", outcome)}"`);
  });

  test("hostile content, tags and data are escaped: no markup from the entry", async () => {
    const t = await h.createTenant(HOSTILE);
    const id = await write(t.token, "facts", { content: HOSTILE, tags: ["<b>x</b>"], data: { k: HOSTILE } });
    const { res, text } = await entryPage(entryPath(t.tenant_id, "fact", id));
    expect(res.status).toBe(200);
    expect(text).not.toMatch(/<script|<img|<b>x|<[a-z][^>]*\son\w+=/i);
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  test("the tenant page's recent entries link to their pages", async () => {
    const t = await h.createTenant();
    const id = await write(t.token, "facts", { content: "linked" });
    const text = await (
      await h.call("GET", `/admin/dashboard/tenants/${t.tenant_id}`, { token: h.adminToken })
    ).text();
    expect(text).toContain(`href="${entryPath(t.tenant_id, "fact", id)}" data-entry-link="${id}"`);
  });

  test("no entry there → a 404 page: bad ids, bad categories, the wrong category, another tenant's entry", async () => {
    const t = await h.createTenant();
    const other = await h.createTenant();
    const id = await write(t.token, "facts", { content: "mine" });
    const empty = await h.createTenant();
    for (const path of [
      entryPath(t.tenant_id, "fact", "deadbeef"),
      entryPath(t.tenant_id, "fact", "NOTANID"),
      entryPath(t.tenant_id, "fact", "x".repeat(5000)),
      entryPath(t.tenant_id, "fact", "%3Cscript%3E"),
      entryPath(t.tenant_id, "facts", id),
      entryPath(t.tenant_id, "..%2F..", id),
      entryPath(t.tenant_id, "decision", id),
      entryPath(other.tenant_id, "fact", id),
      entryPath(empty.tenant_id, "fact", id),
      entryPath("01JDB2X6J3KQ5W8Z3M4N7P9R2S", "fact", id),
    ]) {
      const { res, text } = await entryPage(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(text).not.toContain("<script>");
    }
  });

  test("no token → 401 sign-in page; a tenant's token → 403", async () => {
    const t = await h.createTenant();
    const id = await write(t.token, "facts", { content: "secret" });
    expect((await h.call("GET", entryPath(t.tenant_id, "fact", id))).status).toBe(401);
    const { res, text } = await entryPage(entryPath(t.tenant_id, "fact", id), t.token);
    expect(res.status).toBe(403);
    expect(text).not.toContain("secret");
  });
});

describe("Recent entries: what it leaves out, and the toggle to show all", () => {
  test("a superseded and a retracted entry: hidden and counted, shown with ?show=all; figure = shown + hidden", async () => {
    const t = await h.createTenant();
    const old = await write(t.token, "facts", { content: "Acme pays net 30" });
    const gone = await write(t.token, "facts", { content: "a mistake" });
    clock.advance(60_000);
    const current = await write(t.token, "facts", { content: "Acme pays net 45", supersedes: old });
    expect((await h.call("DELETE", `/memory/facts/${gone}`, { token: t.token })).status).toBe(200);
    const path = `/admin/dashboard/tenants/${t.tenant_id}`;
    const text = await (await h.call("GET", path, { token: h.adminToken })).text();
    const listed = (page: string) => [...page.matchAll(/<tr data-entry="([0-9a-f]{8})"/g)].map((m) => m[1]);
    expect(listed(text)).toEqual([current]);
    expect(text).toContain(
      `1 shown; 1 superseded, 1 retracted hidden — <a href="${path}?show=all#entries">show all</a>`,
    );
    const all = await (await h.call("GET", `${path}?show=all`, { token: h.adminToken })).text();
    expect(listed(all).sort()).toEqual([current, old, gone].sort());
    expect(all).toContain(`<tr data-entry="${old}" data-state="superseded">`);
    expect(all).toContain(`<tr data-entry="${gone}" data-state="retracted">`);
    expect(all).toContain(`3 shown, current or not · <a href="${path}#entries">show current only</a>`);
    // The figure counts the three stored.
    expect(all).toContain("<b>3</b>entries");
    expect((await h.call("GET", `${path}?show=everything`, { token: h.adminToken })).status).toBe(422);
  });
});
