/**
 * The tenant page's search box (`GET /admin/dashboard/tenants/{tenant_id}/search`), black-box through
 * app.handle: the real search over the tenant's memory as the operator (SearchService.searchAsOperator),
 * its category filter and limit, results linking to their entries' pages, hostile words escaped, bad
 * input a 4xx page, another tenant's entries never found; the memory API still refuses the operator.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

const HOSTILE = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;

let h: Harness;
let tenantId: string;
let otherId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  const t = await h.createTenant();
  const other = await h.createTenant();
  tenantId = t.tenant_id;
  otherId = other.tenant_id;
  const write = async (token: string, plural: string, content: string) => {
    const { status, body } = await h.json("POST", `/memory/${plural}`, { token, body: { content } });
    expect(status).toBe(201);
    return body.id as string;
  };
  ids.fact = await write(t.token, "facts", "Acme pays invoices net 30");
  ids.decision = await write(t.token, "decisions", "Offer Acme a 10% discount on invoices");
  ids.hostile = await write(t.token, "facts", `Globex ${HOSTILE}`);
  ids.otherTenant = await write(other.token, "facts", "Acme invoices are secret elsewhere");
});
afterAll(() => h.close());

const searchPath = (id: string, query: Record<string, string> = {}) =>
  `/admin/dashboard/tenants/${id}/search?${new URLSearchParams(query)}`;

async function search(id: string, query: Record<string, string>, token = h.adminToken) {
  const res = await h.call("GET", searchPath(id, query), { token });
  const text = await res.text();
  const found = [...text.matchAll(/<tr data-result="([0-9a-f]{8})">/g)].map((m) => m[1]);
  return { res, text, found };
}

describe("GET /admin/dashboard/tenants/{tenant_id}/search", () => {
  test("the tenant page has the search box, a GET form to the search page", async () => {
    const text = await (
      await h.call("GET", `/admin/dashboard/tenants/${tenantId}`, { token: h.adminToken })
    ).text();
    expect(text).toContain(
      `<form class="search" method="get" action="/admin/dashboard/tenants/${tenantId}/search"`,
    );
    expect(text).toContain('<option value="decision">decision</option>');
  });

  test("finds the tenant's entries by their words, each a link to its page; not another tenant's", async () => {
    const { res, text, found } = await search(tenantId, { q: "Acme invoices" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(found.sort()).toEqual([ids.decision, ids.fact].sort());
    expect(found).not.toContain(ids.otherTenant);
    expect(text).toContain(
      `href="/admin/dashboard/tenants/${tenantId}/entries/decision/${ids.decision}" data-entry-link="${ids.decision}"`,
    );
    expect(text).toContain('value="Acme invoices"');
  });

  test("the category filter and the limit narrow the results", async () => {
    expect((await search(tenantId, { q: "Acme invoices", category: "fact" })).found).toEqual([ids.fact]);
    expect((await search(tenantId, { q: "Acme invoices", category: "" })).found).toHaveLength(2);
    expect((await search(tenantId, { q: "Acme invoices", limit: "1" })).found).toHaveLength(1);
    const kept = await search(tenantId, { q: "Acme", category: "decision" });
    expect(kept.text).toContain('<option value="decision" selected>decision</option>');
  });

  test("hostile search words and hostile content are escaped", async () => {
    const { res, text, found } = await search(tenantId, { q: `Globex ${HOSTILE}` });
    expect(res.status).toBe(200);
    expect(found).toContain(ids.hostile);
    expect(text).not.toMatch(/<script|<img/i);
    // The words come back inside the box's value, whose quote they cannot close.
    expect(text).toContain(
      'value="Globex &lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"',
    );
    expect(text).toContain('<td class="content">Globex &lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test("no query yet: the box alone, no results section", async () => {
    const { res, text } = await search(tenantId, {});
    expect(res.status).toBe(200);
    expect(text).not.toContain('id="results"');
  });

  test("bad input → a 4xx page, never a 500", async () => {
    for (const query of <Array<Record<string, string>>>[
      { q: "x", category: "facts" },
      { q: "x", category: "<script>" },
      { q: "x", limit: "0" },
      { q: "x", limit: "1000" },
      { q: "x", limit: "ten" },
      { q: "x".repeat(5000) },
    ]) {
      const { res, text } = await search(tenantId, query);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(text).not.toContain("<script>");
    }
    for (const id of ["nope", "01JDB2X6J3KQ5W8Z3M4N7P9R2S"])
      expect((await search(id, { q: "Acme" })).res.status).toBe(404);
  });

  test("a tenant's token is refused (403); the memory API still refuses the operator's token", async () => {
    const token = await h.mint(otherId, ["agent"]);
    expect((await search(tenantId, { q: "Acme" }, token)).res.status).toBe(403);
    const api = await h.call("POST", "/memory/search", { token: h.adminToken, body: { query: "Acme" } });
    expect(api.status).toBe(403);
  });
});
