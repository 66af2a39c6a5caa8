import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { SENDERS } from "../fakes/senders/all.ts";
import type { PlatformSender, Signed } from "../fakes/senders/sender.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { setSecrets } from "../helpers/webhooks.ts";

/**
 * Hostile bodies on each of the eighteen sources, signed as validly as the platform would sign them
 * (so they get past verification where the scheme allows): an empty body, 4 MiB, invalid UTF-8, a
 * body of another media type, JSON nested 10,000 deep, and prototype keys. Each is a 4xx with a
 * problem document, never a 500, and nothing is written.
 */

const enc = (s: string) => new TextEncoder().encode(s);
const BODIES: Record<string, { bytes: Uint8Array; contentType?: string }> = {
  empty: { bytes: new Uint8Array(0) },
  "4 MiB": { bytes: enc(`{"pad":"${"x".repeat(4 * 1024 * 1024)}"}`) },
  "2 MiB of valid JSON": { bytes: enc(`{"pad":"${"y".repeat(2 * 1024 * 1024)}"}`) },
  "invalid UTF-8": { bytes: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0xfe, 0x7d]) },
  "another media type": {
    bytes: enc('<?xml version="1.0"?><event type="x"/>'),
    contentType: "application/xml",
  },
  "JSON nested 10,000 deep": {
    bytes: enc(`${"[".repeat(10_000)}${"]".repeat(10_000)}`),
    contentType: "application/json",
  },
};
/** Where an empty body is the platform's ordinary notification, not a hostile one. */
const EMPTY_IS_NORMAL = new Set(["calendar"]);

/**
 * The one answer each hostile body gets. Checks run in CONTRACT §7's order: a body past 4× the
 * limit is not read (413); then the signature (401), parsing (400) and the 1 MiB limit (413).
 */
const ANSWER: Record<string, [number, string]> = {
  empty: [400, "bad_request"],
  "4 MiB": [413, "payload_too_large"],
  "2 MiB of valid JSON": [413, "payload_too_large"],
  "invalid UTF-8": [400, "bad_request"],
  "another media type": [400, "bad_request"],
  "JSON nested 10,000 deep": [400, "bad_request"],
};
const UNAUTHORIZED: [number, string] = [401, "unauthorized"];
/**
 * Where a source answers otherwise. Incidents, office_graph and warehouse parsers need a top-level
 * field (`event`, `value`, rows), so a 2 MiB body, read whole, is refused for its shape before its
 * size. The project tracker signs a timestamp carried in the body, so a body without one fails
 * verification. Telephony signs the form parameters, which invalid UTF-8 does not decode to.
 */
const ANSWER_OF: Record<string, Record<string, [number, string]>> = {
  incidents: { "2 MiB of valid JSON": [400, "bad_request"] },
  office_graph: { "2 MiB of valid JSON": [400, "bad_request"] },
  warehouse: { "2 MiB of valid JSON": [400, "bad_request"] },
  project_tracker: {
    empty: UNAUTHORIZED,
    "2 MiB of valid JSON": UNAUTHORIZED,
    "invalid UTF-8": UNAUTHORIZED,
    "another media type": UNAUTHORIZED,
    "JSON nested 10,000 deep": UNAUTHORIZED,
  },
  telephony: { "invalid UTF-8": UNAUTHORIZED },
};

/**
 * A body of prototype keys is an object of no known shape: most sources ignore it as an unknown
 * event type (200, ignored 1); calendar reads its notification from headers (one entry); storefront
 * takes its topic from a header and cannot map the body (a dead letter); the sources that require a
 * top-level field refuse it (400); the project tracker finds no signed timestamp (401).
 */
const PROTO_ANSWER: Record<string, number | { accepted: number; ignored: number; dead_lettered: number }> = {
  calendar: { accepted: 1, ignored: 0, dead_lettered: 0 },
  storefront: { accepted: 0, ignored: 0, dead_lettered: 1 },
  incidents: 400,
  office_graph: 400,
  warehouse: 400,
  project_tracker: 401,
};
const PROTO_IGNORED = { accepted: 0, ignored: 1, dead_lettered: 0 };

const clock = new ManualClock();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

/** The sender's own byte-exact signing, else its ordinary signing of the text. */
function signHostile(sender: PlatformSender, bytes: Uint8Array, url: string): Promise<Signed> | Signed {
  const opts = { now: clock.now(), url };
  if (sender.signRaw) return sender.signRaw(bytes, opts);
  return sender.sign(new TextDecoder().decode(bytes), opts);
}

describe.each(SENDERS.map((s) => [s.source, s] as const))("%s under hostile bodies", (id, sender) => {
  const cases = Object.keys(BODIES).filter((name) => !(name === "empty" && EMPTY_IS_NORMAL.has(id)));
  test.each(cases)("%s → its one 4xx, nothing written", async (name) => {
    const t = await h.createTenant();
    setSecrets(h, t.tenant_id, sender.secrets);
    const body = BODIES[name]!;
    const url = `${BASE}/webhooks/${id}/${t.tenant_id}`;
    const signed = await signHostile(sender, body.bytes, url);
    const headers = { ...signed.headers, ...(body.contentType ? { "content-type": body.contentType } : {}) };
    const res = await h.call("POST", `/webhooks/${id}/${t.tenant_id}`, { raw: signed.body, headers });
    const text = await res.text();
    const [status, code] = ANSWER_OF[id]?.[name] ?? ANSWER[name]!;
    expect({ name, status: res.status, code: JSON.parse(text).code }).toEqual({ name, status, code });
    expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    expect(text).not.toMatch(/\n\s+at |\.ts:\d+/);
    const health = await h.json("GET", `/tenants/${t.tenant_id}/healthz`, { token: h.adminToken });
    expect(health.body.vault.entries).toBe(0);
  });

  test("a signed body full of prototype keys gets its one answer and pollutes nothing", async () => {
    const t = await h.createTenant();
    setSecrets(h, t.tenant_id, sender.secrets);
    const bytes = enc(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"value":[]}',
    );
    const signed = await signHostile(sender, bytes, `${BASE}/webhooks/${id}/${t.tenant_id}`);
    const res = await h.call("POST", `/webhooks/${id}/${t.tenant_id}`, {
      raw: signed.body,
      headers: signed.headers,
    });
    const body = JSON.parse(await res.text());
    const expected = PROTO_ANSWER[id] ?? PROTO_IGNORED;
    if (typeof expected === "number") {
      expect({ status: res.status, code: body.code }).toEqual({
        status: expected,
        code: expected === 400 ? "bad_request" : "unauthorized",
      });
    } else {
      expect({
        status: res.status,
        accepted: body.accepted,
        ignored: body.ignored,
        dead_lettered: body.dead_lettered?.length,
      }).toEqual({ status: 200, ...expected });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
