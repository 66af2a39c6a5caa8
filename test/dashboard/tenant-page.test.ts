/**
 * A tenant's dashboard page (`GET /admin/dashboard/tenants/{tenant_id}`) and its replay form
 * (`POST …/replay`), black-box through app.handle: who may see and post, what the page shows
 * (escaped), the replay and its redirect, the form's same-origin and form-token checks, and that a
 * replayed dead letter is no longer counted as open.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { BridgeEvent } from "../../src/bridge/events.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

/** Half an hour before midnight: 40 minutes on is the next UTC day, within the tokens' hour. */
const STARTED_AT = Date.UTC(2026, 10, 23, 23, 30, 0);
const TO_NEXT_DAY_MS = 40 * 60 * 1000;
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const HOSTILE = `<script>document.title='owned'</script><img src=x onerror=alert(1)> & "q" 'a'`;
const ESCAPED =
  "&lt;script&gt;document.title=&#39;owned&#39;&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;a&#39;";
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

let clock: ManualClock;
let h: Harness;
beforeEach(async () => {
  clock = new ManualClock(STARTED_AT);
  h = await startHarness({ clock });
});
afterEach(() => h.close());

const pagePath = (id: string) => `/admin/dashboard/tenants/${id}`;
const replayPath = (id: string) => `/admin/dashboard/tenants/${id}/replay`;
const cookieOf = (token: string) => ({ cookie: `memory_admin=${token}` });

async function page(id: string, opts: { token?: string; headers?: Record<string, string> } = {}) {
  const res = await h.call("GET", pagePath(id), { token: opts.token ?? h.adminToken, headers: opts.headers });
  return { res, text: await res.text() };
}

function expectPage(res: Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
}

/** The messaging bridge's ✅ on a message not yet stored: a dead letter, replayable once it arrives. */
async function deadLetter(
  tenantId: string,
  ts: string,
): Promise<{ eventId: string; arrive: () => Promise<void> }> {
  const message = { type: "message", channel: "C1", user: "U1", text: `Offer ${ts}`, ts } as BridgeEvent;
  const reaction = {
    type: "reaction_added",
    user: "U3",
    reaction: "white_check_mark",
    item: { channel: "C1", ts },
  } as BridgeEvent;
  const eventId = `C1:${ts}:reaction_added`;
  expect((await h.runtime.bridge.deliver(tenantId, reaction)).dead_lettered).toEqual([eventId]);
  return {
    eventId,
    arrive: async () => {
      expect((await h.runtime.bridge.deliver(tenantId, message)).entries).toHaveLength(1);
    },
  };
}

function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The hidden form token of the page's first replay form. */
function formTokenIn(text: string): string {
  const token = text.match(/name="form_token" value="([^"]+)"/)?.[1];
  expect(token).toBeDefined();
  return token!;
}

describe("GET /admin/dashboard/tenants/{tenant_id}: who may see it", () => {
  test("no token → 401 with the sign-in form; a tenant token → 403, recorded as a denial", async () => {
    const t = await h.createTenant();
    const anonymous = await h.call("GET", pagePath(t.tenant_id));
    expectPage(anonymous, 401);
    expect(await anonymous.text()).toContain('action="/admin/dashboard/session"');
    const { res } = await page(t.tenant_id, { token: t.token });
    expectPage(res, 403);
    const { body } = await h.json("GET", `/admin/audit/denials/${t.tenant_id}`, { token: h.adminToken });
    expect(body.denials[0]).toMatchObject({
      method: "GET",
      path: pagePath(t.tenant_id),
      permission: "admin",
    });
  });

  test("the dashboard cookie opens it, as it opens the overview", async () => {
    const t = await h.createTenant();
    const res = await h.call("GET", pagePath(t.tenant_id), { headers: cookieOf(h.adminToken) });
    expectPage(res, 200);
  });

  test("an unknown tenant or a malformed id → a 404 page; nothing is created on disk", async () => {
    for (const id of [
      UNKNOWN_TENANT,
      "nope",
      "..%2F..%2Fetc",
      "01JDB2X6J3KQ5W8Z3M4N7P9R2s",
      "x".repeat(5000),
    ]) {
      const { res, text } = await page(id);
      expectPage(res, 404);
      expect(text).toContain("404");
      expect(text).toContain('href="/admin/dashboard"');
    }
    expect(h.runtime.services.tenants.vaultPresent(UNKNOWN_TENANT)).toBe(false);
  });

  test("a malformed query → a 422 page", async () => {
    const t = await h.createTenant();
    const res = await h.call("GET", `${pagePath(t.tenant_id)}?replayed=maybe&event=x`, {
      token: h.adminToken,
    });
    expectPage(res, 422);
  });
});

describe("the operator's rate limit", () => {
  test("a 429 on the page or the form is an error page keeping Retry-After", async () => {
    const limited = await startHarness({
      clock: new ManualClock(STARTED_AT),
      env: {
        [`MEMORY_RUNTIME_RATE_LIMITS_${OPERATOR_TENANT_ID}`]: "admin=1:2",
        MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "0",
      },
    });
    try {
      const t = await limited.createTenant();
      const path = pagePath(t.tenant_id);
      expect((await limited.call("GET", path, { token: limited.adminToken })).status).toBe(200);
      const refusals = [
        await limited.call("GET", path, { token: limited.adminToken }),
        await limited.call("POST", replayPath(t.tenant_id), {
          token: limited.adminToken,
          raw: formBody({ event_id: "x", source: "messaging" }),
          headers: FORM,
        }),
      ];
      for (const res of refusals) {
        expectPage(res, 429);
        expect(res.headers.get("retry-after")).toBe("1");
        expect(await res.text()).toContain("429 Rate limited");
      }
    } finally {
      await limited.close();
    }
  });
});

describe("GET /admin/dashboard/tenants/{tenant_id}: what it shows", () => {
  test("a new tenant: zeros, no entries, no dead letters, no connector running", async () => {
    const t = await h.createTenant();
    const { res, text } = await page(t.tenant_id);
    expectPage(res, 200);
    expect(text).toContain("<b>0</b>entries");
    expect(text).toContain("No entries yet.");
    expect(text).toContain("No dead letters.");
    expect(text).toContain("No denials.");
    expect(text.match(/not running for this tenant/g)).toHaveLength(3);
  });

  test("hostile names and contents are escaped: nothing becomes markup, the page has no script", async () => {
    const t = await h.createTenant(HOSTILE);
    const write = await h.call("POST", "/memory/facts", {
      token: t.token,
      body: { content: HOSTILE, tags: ["<b>tag</b>"] },
    });
    expect(write.status).toBe(201);
    const { text } = await page(t.tenant_id);
    expect(text).not.toContain("<script>document");
    expect(text).not.toContain("<img");
    expect(text).not.toContain("<b>tag</b>");
    expect(text).toContain(`<h2>${ESCAPED}</h2>`);
    expect(text).toContain(
      `<td class="content">${ESCAPED} <span class="tag">&lt;b&gt;tag&lt;/b&gt;</span></td>`,
    );
    // No element of the page carries a script, an event handler or an outside address.
    expect(text).not.toMatch(/<script|<[a-z][^>]*\son\w+=|<[a-z][^>]*(src|href)="(https?:)?\/\//i);
  });

  test("figures, writes per day, newest entries first, connector health and the tenant's denials", async () => {
    const t = await h.createTenant();
    for (const content of ["first fact", "second fact"])
      await h.call("POST", "/memory/facts", { token: t.token, body: { content } });
    clock.advance(TO_NEXT_DAY_MS);
    await h.call("POST", "/memory/decisions", { token: t.token, body: { content: "newest decision" } });
    await deadLetter(t.tenant_id, "1.1");
    // A tenant token on an admin route: a denial of this tenant.
    expect((await h.call("GET", "/admin/tenants", { token: t.token })).status).toBe(403);
    const { text } = await page(t.tenant_id);
    const figures = text.match(/<tr data-figures="entries">([\s\S]*?)<\/tr>/)![1]!;
    expect([...figures.matchAll(/<td class="n">(\d+)<\/td>/g)].map((m) => m[1])).toEqual([
      "1",
      "0",
      "2",
      "0",
      "0",
      "0",
    ]);
    expect(text).toContain("<b>3</b>entries");
    expect(text).toContain("<b>1</b>open dead letters");
    expect(text).toContain("<b>3</b>vectors indexed");
    expect(text).toContain("<b>0</b>embedding backlog");
    // Both days in the chart: 2 facts on the first, 1 decision on the next.
    expect(text).toContain("<title>2026-11-23 fact: 2</title>");
    expect(text).toContain("<title>2026-11-24 decision: 1</title>");
    const entries = [...text.matchAll(/<td class="content">([^<]*)/g)].map((m) => m[1]);
    expect(entries.slice(0, 3)).toEqual(["newest decision", "second fact", "first fact"]);
    const messaging = text.match(/<tr data-connector="messaging">([\s\S]*?)<\/tr>/)![1]!;
    expect(messaging).toContain("<b>active</b>");
    expect(messaging).toContain("events: 1");
    expect(text).toMatch(/<tr data-connector="crm"><td>CRM event stream<\/td><td class="muted">not running/);
    const denials = text.slice(text.indexOf('id="denials"'));
    expect(denials).toContain("<code>GET /admin/tenants</code>");
  });

  test("each recent entry shows its trust and origin, escaped (a hostile agent's sub stays text)", async () => {
    const t = await h.createTenant();
    await h.call("POST", "/memory/facts", { token: t.token, body: { content: "said by the operator" } });
    const hostile = await h.mint(t.tenant_id, ["tenant_admin"], HOSTILE);
    await h.call("POST", "/memory/facts", { token: hostile, body: { content: "said by a hostile sub" } });
    // The bridge's message: its origin is the bridge's.
    const message = {
      type: "message",
      channel: "C9",
      user: "U9",
      text: "bridged words",
      ts: "9.1",
    } as BridgeEvent;
    await h.runtime.bridge.deliver(t.tenant_id, message);
    const { text } = await page(t.tenant_id);
    const rows = [
      ...text.matchAll(/<tr data-entry="([0-9a-f]{8})" data-state="current">([\s\S]*?)<\/tr>/g),
    ].map((m) => m[2]!);
    expect(rows).toHaveLength(3);
    for (const row of rows)
      expect(row).toMatch(/<td data-trust="operator"><b>operator<\/b><br><span class="muted origin">/);
    expect(text).toContain("the messaging bridge, event &quot;C9:9.1:message&quot;");
    expect(text).toContain("the tenant&#39;s operator");
    expect(text).toContain(
      JSON.stringify(HOSTILE)
        .replaceAll("&", "&amp;")
        .replaceAll("<", "&lt;")
        .replaceAll(">", "&gt;")
        .replaceAll('"', "&quot;")
        .replaceAll("'", "&#39;"),
    );
    expect(text).not.toContain("<script>document.title");
  });

  test("the overview links each tenant row to its page", async () => {
    const t = await h.createTenant();
    const res = await h.call("GET", "/admin/dashboard", { token: h.adminToken });
    expect(await res.text()).toContain(`<a href="/admin/dashboard/tenants/${t.tenant_id}">`);
  });
});

describe("POST /admin/dashboard/tenants/{tenant_id}/replay", () => {
  test("the page's replay button replays through the admin route's path, audits, and redirects back", async () => {
    const t = await h.createTenant();
    const letter = await deadLetter(t.tenant_id, "2.2");
    await letter.arrive();
    const { text } = await page(t.tenant_id);
    expect(text).toContain(`action="/admin/dashboard/tenants/${t.tenant_id}/replay"`);
    const res = await h.call("POST", replayPath(t.tenant_id), {
      token: h.adminToken,
      raw: formBody({ event_id: letter.eventId, source: "messaging" }),
      headers: FORM,
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe(
      `/admin/dashboard/tenants/${t.tenant_id}?replayed=replayed&event=${encodeURIComponent(letter.eventId)}#dead-letters`,
    );
    const after = await h.call("GET", location.replace(/#.*/, ""), { token: h.adminToken });
    const shown = await after.text();
    expect(shown).toContain(`Event <code>${letter.eventId}</code> replayed`);
    // No replay button for a replayed letter; the row says what it wrote.
    const row = shown.match(
      new RegExp(`<tr data-dead-letter="${letter.eventId}"[^>]*>([\\s\\S]*?)</tr>`),
    )![1]!;
    expect(row).toContain("1 entries");
    expect(row).not.toContain("<form");
    const { body } = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenant_id}`, {
      token: h.adminToken,
    });
    expect(body.dead_letters[0]).toMatchObject({ event_id: letter.eventId, status: "replayed", attempts: 2 });
    const audit = await h.json("GET", "/admin/audit/events?limit=5", { token: h.adminToken });
    expect(audit.body.events[0]).toMatchObject({
      action: "deadletter.replayed",
      sub: "operator",
      tenant_id: t.tenant_id,
      target: letter.eventId,
    });
  });

  test("a replay that fails again redirects back saying the letter is still dead", async () => {
    const t = await h.createTenant();
    const letter = await deadLetter(t.tenant_id, "3.3");
    const res = await h.call("POST", replayPath(t.tenant_id), {
      token: h.adminToken,
      raw: formBody({ event_id: letter.eventId, source: "messaging" }),
      headers: FORM,
    });
    expect(res.headers.get("location")).toContain("?replayed=dead&");
    const { text } = await page(t.tenant_id, { headers: {} });
    expect(text).toContain("<b>1</b>open dead letters");
  });

  test("with the cookie: accepted from this origin with the page's form token", async () => {
    const t = await h.createTenant();
    const letter = await deadLetter(t.tenant_id, "4.4");
    await letter.arrive();
    const viewed = await h.call("GET", pagePath(t.tenant_id), { headers: cookieOf(h.adminToken) });
    const formToken = formTokenIn(await viewed.text());
    const fields = { event_id: letter.eventId, source: "messaging", form_token: formToken };
    const sameSite = await h.call("POST", replayPath(t.tenant_id), {
      raw: formBody(fields),
      headers: { ...FORM, ...cookieOf(h.adminToken), ...SAME_ORIGIN },
    });
    expect(sameSite.status).toBe(303);
    // A browser that sends no Sec-Fetch-Site: its Origin must name this host.
    const viaOrigin = await h.call("POST", replayPath(t.tenant_id), {
      raw: formBody(fields),
      headers: { ...FORM, ...cookieOf(h.adminToken), origin: "http://localhost", host: "localhost" },
    });
    expect(viaOrigin.status).toBe(303);
  });

  test("with the cookie: refused without the form token, from another origin, or with no origin at all", async () => {
    const t = await h.createTenant();
    const letter = await deadLetter(t.tenant_id, "5.5");
    await letter.arrive();
    const viewed = await h.call("GET", pagePath(t.tenant_id), { headers: cookieOf(h.adminToken) });
    const formToken = formTokenIn(await viewed.text());
    const post = (fields: Record<string, string>, headers: Record<string, string>) =>
      h.call("POST", replayPath(t.tenant_id), {
        raw: formBody({ event_id: letter.eventId, source: "messaging", ...fields }),
        headers: { ...FORM, ...cookieOf(h.adminToken), ...headers },
      });
    // Same origin, but no token, or another session's: 400, an error page saying why.
    const wrong: Array<Record<string, string>> = [
      {},
      { form_token: "x".repeat(43) },
      { form_token: `${formToken}x` },
    ];
    for (const fields of wrong) {
      const res = await post(fields, SAME_ORIGIN);
      expectPage(res, 400);
      expect(await res.text()).toContain("not from this session");
    }
    // Another site, a sibling subdomain, or no origin header: the cookie does not count (401).
    const elsewhere: Array<Record<string, string>> = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "http://evil.example", host: "localhost" },
      { origin: "null", host: "localhost" },
      {},
    ];
    for (const headers of elsewhere) {
      const res = await post({ form_token: formToken }, headers);
      expectPage(res, 401);
    }
    const { body } = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenant_id}`, {
      token: h.adminToken,
    });
    expect(body.dead_letters[0]).toMatchObject({ status: "dead", attempts: 1 });
  });

  test("a tenant token → 403; no credential → 401; unknown tenant or dead letter → 404", async () => {
    const t = await h.createTenant();
    const letter = await deadLetter(t.tenant_id, "6.6");
    const raw = formBody({ event_id: letter.eventId, source: "messaging" });
    expectPage(await h.call("POST", replayPath(t.tenant_id), { token: t.token, raw, headers: FORM }), 403);
    expectPage(await h.call("POST", replayPath(t.tenant_id), { raw, headers: FORM }), 401);
    expectPage(
      await h.call("POST", replayPath(UNKNOWN_TENANT), { token: h.adminToken, raw, headers: FORM }),
      404,
    );
    const unknownEvent = formBody({ event_id: "C1:9.9:reaction_added", source: "messaging" });
    expectPage(
      await h.call("POST", replayPath(t.tenant_id), {
        token: h.adminToken,
        raw: unknownEvent,
        headers: FORM,
      }),
      404,
    );
  });

  test("bad forms: missing or unknown fields' values → 422, JSON → 400, oversized → 413 (pages, never a 500)", async () => {
    const t = await h.createTenant();
    const post = (raw: string, headers: Record<string, string> = FORM) =>
      h.call("POST", replayPath(t.tenant_id), { token: h.adminToken, raw, headers });
    expectPage(await post(formBody({ source: "messaging" })), 422);
    expectPage(await post(formBody({ event_id: "x", source: "<script>" })), 422);
    expectPage(await post(formBody({ event_id: "x".repeat(513), source: "messaging" })), 422);
    expectPage(await post(JSON.stringify({ event_id: "x" }), { "content-type": "application/json" }), 400);
    expectPage(await post(`event_id=${"x".repeat(17 * 1024)}&source=messaging`), 413);
    expectPage(await post("%E0%A4%A=%ZZ&source=messaging"), 422);
  });
});

describe("open dead letters: a replayed one is not counted", () => {
  test("stats, the overview row and the tenant page count open letters; health still counts those kept", async () => {
    const t = await h.createTenant();
    const replayed = await deadLetter(t.tenant_id, "7.7");
    await deadLetter(t.tenant_id, "8.8");
    await replayed.arrive();
    const stats = async () =>
      (await h.json("GET", `/admin/metrics/stats/${t.tenant_id}`, { token: h.adminToken })).body.dead_letters;
    expect(await stats()).toBe(2);
    const replay = await h.json(
      "POST",
      `/admin/webhooks/replay/${t.tenant_id}/${encodeURIComponent(replayed.eventId)}`,
      { token: h.adminToken },
    );
    expect(replay.body.status).toBe("replayed");
    expect(await stats()).toBe(1);
    const overview = await (await h.call("GET", "/admin/dashboard", { token: h.adminToken })).text();
    const row = overview.match(new RegExp(`<tr data-tenant="${t.tenant_id}">([\\s\\S]*?)</tr>`))![1]!;
    const cells = [...row.matchAll(/<td class="n">(?:<b>)?(\d+)/g)].map((m) => m[1]);
    expect(cells.at(-1)).toBe("1");
    const { text } = await page(t.tenant_id);
    expect(text).toContain("Dead letters (1 open;");
    expect(text).toContain("dead letters kept, replayed ones included: 2");
    const health = await h.json("GET", `/tenants/${t.tenant_id}/healthz`, { token: h.adminToken });
    expect(health.body.dead_letters).toBe(2);
  });
});
