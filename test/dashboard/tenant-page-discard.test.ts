/**
 * The Discard button of a tenant's dashboard page (docs/dashboard-and-metrics.md), beside Replay on
 * each dead letter still dead, posting to `POST /admin/dashboard/tenants/{tenant_id}/discard`,
 * black-box through app.handle: it discards as the admin route does (audited), redirects back with
 * a notice, the letter stays listed as discarded and no button replays it again; the form takes the
 * cookie only with the page's form token from this origin, as the replay form does.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { deadLettersFor, fact, warehouseTenant } from "../helpers/webhook-ops.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

let h: Harness;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  h = await startHarness({ clock });
});
afterEach(() => h.close());

const pagePath = (id: string) => `/admin/dashboard/tenants/${id}`;
const discardPath = (id: string) => `${pagePath(id)}/discard`;
const cookieOf = (token: string) => ({ cookie: `memory_admin=${token}` });
const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function expectPage(res: Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
}

/** A tenant with one warehouse dead letter per id. */
async function withLetters(...eventIds: string[]) {
  const t = await warehouseTenant(h);
  await deadLettersFor(
    h,
    clock,
    t.id,
    eventIds.map((id) => fact(id)),
  );
  return t;
}

/** The row of a dead letter on the page. */
function rowOf(text: string, eventId: string): string {
  const row = text.match(new RegExp(`<tr data-dead-letter="${eventId}"[^>]*>([\\s\\S]*?)</tr>`))?.[1];
  expect(row).toBeDefined();
  return row!;
}

async function statusOf(tenantId: string, eventId: string): Promise<string> {
  const { body } = await h.json("GET", `/admin/webhooks/dead-letters/${tenantId}`, { token: h.adminToken });
  return body.dead_letters.find((d: { event_id: string }) => d.event_id === eventId)?.status;
}

describe("POST /admin/dashboard/tenants/{tenant_id}/discard", () => {
  test("Discard sits beside Replay; it discards, audits and redirects back; the letter stays listed, no button left", async () => {
    const t = await withLetters("hopeless");
    const before = await (await h.call("GET", pagePath(t.id), { token: h.adminToken })).text();
    const row = rowOf(before, "hopeless");
    expect(row).toContain(`action="${pagePath(t.id)}/replay"`);
    expect(row).toContain(`action="${discardPath(t.id)}"`);
    expect(row.indexOf(">Replay<")).toBeLessThan(row.indexOf(">Discard<"));

    const res = await h.call("POST", discardPath(t.id), {
      token: h.adminToken,
      raw: formBody({ event_id: "hopeless", source: "warehouse" }),
      headers: FORM,
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe(`${pagePath(t.id)}?discarded=hopeless#dead-letters`);
    const after = await (await h.call("GET", location.replace(/#.*/, ""), { token: h.adminToken })).text();
    expect(after).toContain("Event <code>hopeless</code> discarded");
    const discarded = rowOf(after, "hopeless");
    expect(discarded).toContain(`discarded ${new Date(clock.now()).toISOString()} by operator`);
    expect(discarded).not.toContain("<form");
    expect(after).toContain("Dead letters (0 open");
    expect(await statusOf(t.id, "hopeless")).toBe("discarded");
    const audit = await h.json("GET", "/admin/audit/events?limit=5", { token: h.adminToken });
    expect(audit.body.events[0]).toMatchObject({
      action: "deadletter.discarded",
      sub: "operator",
      tenant_id: t.id,
      target: "hopeless",
    });
    // The replay form posted anyway (a page from before): a 409 page, the letter unchanged.
    const replay = await h.call("POST", `${pagePath(t.id)}/replay`, {
      token: h.adminToken,
      raw: formBody({ event_id: "hopeless", source: "warehouse" }),
      headers: FORM,
    });
    expectPage(replay, 409);
    expect(await replay.text()).toContain("discarded");
    expect(await statusOf(t.id, "hopeless")).toBe("discarded");
  });

  test("with the cookie: accepted from this origin with the page's form token, refused without it or from elsewhere", async () => {
    const t = await withLetters("cookie-1", "cookie-2");
    const viewed = await h.call("GET", pagePath(t.id), { headers: cookieOf(h.adminToken) });
    const text = await viewed.text();
    const formToken = rowOf(text, "cookie-1").match(/name="form_token" value="([^"]+)"/)?.[1];
    expect(formToken).toBeDefined();
    const post = (eventId: string, fields: Record<string, string>, headers: Record<string, string>) =>
      h.call("POST", discardPath(t.id), {
        raw: formBody({ event_id: eventId, source: "warehouse", ...fields }),
        headers: { ...FORM, ...cookieOf(h.adminToken), ...headers },
      });
    const wrong: Array<Record<string, string>> = [{}, { form_token: `${formToken}x` }];
    for (const fields of wrong) {
      const res = await post("cookie-1", fields, SAME_ORIGIN);
      expectPage(res, 400);
      expect(await res.text()).toContain("not from this session");
    }
    const elsewhere: Array<Record<string, string>> = [
      { "sec-fetch-site": "cross-site" },
      { origin: "http://evil.example" },
      {},
    ];
    for (const headers of elsewhere)
      expectPage(await post("cookie-1", { form_token: formToken! }, headers), 401);
    expect(await statusOf(t.id, "cookie-1")).toBe("dead");
    expect((await post("cookie-1", { form_token: formToken! }, SAME_ORIGIN)).status).toBe(303);
    const viaOrigin = { origin: "http://localhost", host: "localhost" };
    expect((await post("cookie-2", { form_token: formToken! }, viaOrigin)).status).toBe(303);
    expect(await statusOf(t.id, "cookie-1")).toBe("discarded");
    expect(await statusOf(t.id, "cookie-2")).toBe("discarded");
  });

  test("a tenant token 403, no credential 401, unknown tenant or letter 404, a replayed letter 409, bad forms 422", async () => {
    const t = await withLetters("kept", "replayed");
    const raw = formBody({ event_id: "kept", source: "warehouse" });
    const as = (token: string | undefined, id = t.id, body = raw) =>
      h.call("POST", discardPath(id), { token, raw: body, headers: FORM });
    expectPage(await as(t.token), 403);
    expectPage(await as(undefined), 401);
    expectPage(await as(h.adminToken, UNKNOWN_TENANT), 404);
    expectPage(await as(h.adminToken, t.id, formBody({ event_id: "nope", source: "warehouse" })), 404);
    const replayed = await h.json("POST", `/admin/webhooks/replay/${t.id}/replayed`, { token: h.adminToken });
    expect(replayed.body.status).toBe("replayed");
    expectPage(await as(h.adminToken, t.id, formBody({ event_id: "replayed", source: "warehouse" })), 409);
    const bad: Array<Record<string, string>> = [
      { source: "warehouse" },
      { event_id: "kept", source: "<script>" },
    ];
    for (const fields of bad) expectPage(await as(h.adminToken, t.id, formBody(fields)), 422);
    expect(await statusOf(t.id, "kept")).toBe("dead");
  });
});
