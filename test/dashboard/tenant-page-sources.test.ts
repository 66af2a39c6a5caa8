/**
 * The sources of a tenant's dashboard page (docs/dashboard-and-metrics.md): each source's status,
 * held events and dead letters, with a Pause or Resume button posting to
 * `POST /admin/dashboard/tenants/{tenant_id}/sources`, black-box through app.handle: the buttons
 * do what the admin routes do (audited), redirect back, and take the cookie only with the page's
 * form token from this origin.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { deliver, fact, factsOf, warehouseTenant } from "../helpers/webhook-ops.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const pagePath = (id: string) => `/admin/dashboard/tenants/${id}`;
const formPath = (id: string) => `${pagePath(id)}/sources`;
const cookieOf = (token: string) => ({ cookie: `memory_admin=${token}` });
const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function pageText(id: string, query = ""): Promise<string> {
  const res = await h.call("GET", pagePath(id) + query, { token: h.adminToken });
  expect(res.status).toBe(200);
  return res.text();
}

/** The row of a source on the page. */
function rowOf(text: string, source: string): string {
  const row = text.match(new RegExp(`<tr data-source="${source}"[^>]*>([\\s\\S]*?)</tr>`))?.[1];
  expect(row).toBeDefined();
  return row!;
}

function press(id: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return h.call("POST", formPath(id), {
    token: h.adminToken,
    raw: formBody(fields),
    headers: { ...FORM, ...headers },
  });
}

describe("the sources on a tenant's page", () => {
  test("Pause holds the source's deliveries; the page shows them held; Resume applies them", async () => {
    const t = await warehouseTenant(h);
    const before = await pageText(t.id);
    expect(before).toContain('<section id="sources">');
    // Every source is there, the quiet ones folded, each with a Pause button posting to the form.
    expect(rowOf(before, "warehouse")).toContain(">Pause</button>");
    expect(before).toContain("23 other sources, active, nothing held");
    expect(before).toContain(`action="${formPath(t.id)}"`);

    const paused = await press(t.id, { source: "warehouse", action: "pause" });
    expect(paused.status).toBe(303);
    expect(paused.headers.get("location")).toBe(`${pagePath(t.id)}?changed=paused&source=warehouse#sources`);
    expect((await deliver(h, t.id, [fact("p-1"), fact("p-2")])).body).toEqual({ held: 2 });
    const shown = await pageText(t.id, "?changed=paused&source=warehouse");
    expect(shown).toContain("Source <code>warehouse</code> paused");
    const row = rowOf(shown, "warehouse");
    expect(row).toContain("<td>paused</td>");
    expect(row).toMatch(/<td class="n">2<\/td>/);
    expect(row).toContain(">Resume</button>");
    expect(shown).toContain("22 other sources");

    const resumed = await press(t.id, { source: "warehouse", action: "resume" });
    expect(resumed.headers.get("location")).toBe(`${pagePath(t.id)}?changed=active&source=warehouse#sources`);
    expect((await factsOf(h, t.token)).map((f) => f.source?.event_id).sort()).toEqual(["p-1", "p-2"]);
    expect(rowOf(await pageText(t.id), "warehouse")).toContain(">Pause</button>");
    const audit = await h.json("GET", "/admin/audit/events?limit=5", { token: h.adminToken });
    expect(
      audit.body.events.slice(0, 2).map((e: { action: string; target: string }) => [e.action, e.target]),
    ).toEqual([
      ["webhook_source.resumed", "warehouse"],
      ["webhook_source.paused", "warehouse"],
    ]);
  });

  test("with the cookie: accepted with the page's form token from this origin; refused without it", async () => {
    const t = await warehouseTenant(h);
    const viewed = await h.call("GET", pagePath(t.id), { headers: cookieOf(h.adminToken) });
    const formToken = (await viewed.text()).match(/name="form_token" value="([^"]+)"/)?.[1];
    expect(formToken).toBeDefined();
    const post = (fields: Record<string, string>, headers: Record<string, string>) =>
      h.call("POST", formPath(t.id), {
        raw: formBody({ source: "forms", action: "pause", ...fields }),
        headers: { ...FORM, ...cookieOf(h.adminToken), ...headers },
      });
    expect((await post({}, SAME_ORIGIN)).status).toBe(400);
    expect((await post({ form_token: formToken! }, { "sec-fetch-site": "cross-site" })).status).toBe(401);
    const { body: still } = await h.json("GET", `/admin/webhooks/sources/${t.id}`, { token: h.adminToken });
    expect(still.sources.find((s: { source: string }) => s.source === "forms")).toMatchObject({
      status: "active",
    });
    expect((await post({ form_token: formToken! }, SAME_ORIGIN)).status).toBe(303);
    const { body } = await h.json("GET", `/admin/webhooks/sources/${t.id}`, { token: h.adminToken });
    expect(body.sources.find((s: { source: string }) => s.source === "forms")).toMatchObject({
      status: "paused",
    });
  });

  test("a bad form is a 422 page and changes nothing; a tenant's token a 403", async () => {
    const t = await warehouseTenant(h);
    const bad: Array<Record<string, string>> = [
      { source: "no_such_source", action: "pause" },
      { source: "warehouse", action: "explode" },
      { action: "pause" },
      { source: "warehouse" },
    ];
    for (const fields of bad) {
      const res = await press(t.id, fields);
      expect(res.status).toBe(422);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    }
    const asTenant = await h.call("POST", formPath(t.id), {
      token: t.token,
      raw: formBody({ source: "warehouse", action: "pause" }),
      headers: FORM,
    });
    expect(asTenant.status).toBe(403);
    const { body } = await h.json("GET", `/admin/webhooks/sources/${t.id}`, { token: h.adminToken });
    expect(body.sources.every((s: { status: string }) => s.status === "active")).toBe(true);
    // A notice naming no known source is a 422 page, not an echo.
    expect(
      (await h.call("GET", `${pagePath(t.id)}?changed=paused&source=%3Cscript%3E`, { token: h.adminToken }))
        .status,
    ).toBe(422);
  });
});
