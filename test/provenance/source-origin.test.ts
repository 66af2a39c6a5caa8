/**
 * The origin of an event's entries (src/provenance/source-origin.ts) and the trust arithmetic
 * (src/provenance/trust.ts), as pure functions: the scheme named per source and per header, the
 * digest of the raw body or of the event, the bridge's own origin, the caller's level by role.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { deliveryOrigin, eventProvenance, schemeOf } from "../../src/provenance/source-origin.ts";
import { atLeast, callerProvenance, lowestTrust, withProvenance } from "../../src/provenance/trust.ts";
import { startHarness } from "../helpers/harness.ts";
import { acceptData, postDataDelivery } from "./verified-events.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("source origins", () => {
  test("a webhook delivery: its source's scheme, its request id and the raw body's digest", () => {
    const raw = new TextEncoder().encode('{"id":"evt_1"}');
    const delivery = deliveryOrigin("payments", new Headers(), raw, "req-1");
    expect(delivery).toEqual({
      scheme: "HMAC-SHA256 hex of t.body (Stripe-Signature v1)",
      delivery_id: "req-1",
      payload_sha256: sha256('{"id":"evt_1"}'),
    });
    const event = { event_id: "evt_1", payload: { id: "evt_1" } };
    expect(eventProvenance("payments", event, delivery)).toEqual({
      origin: { kind: "source", source: "payments", event_id: "evt_1", ...delivery, digest_of: "raw_body" },
      trust: "verified",
    });
  });

  test("the marketing CRM's scheme follows the signature header the delivery carried", () => {
    expect(schemeOf("marketing_crm", new Headers())).toContain("v1");
    const v3 = new Headers({ "x-marketingcrm-signature-v3": "abc" });
    expect(schemeOf("marketing_crm", v3)).toContain("V3");
  });

  test("an event without its delivery (a stream, a replay): the event's digest, no delivery id", () => {
    const payload = { Id: "a0B1", sObject: { type: "Case" } };
    const p = eventProvenance("crm", { event_id: "a0B1", payload });
    expect(p.origin).toEqual({
      kind: "source",
      source: "crm",
      event_id: "a0B1",
      scheme: "OAuth 2.0 JWT bearer stream over TLS",
      delivery_id: null,
      payload_sha256: sha256(JSON.stringify(payload)),
      digest_of: "event",
    });
  });

  test("the messaging bridge is the operator's own adapter: its origin, operator trust", () => {
    expect(eventProvenance("messaging", { event_id: "C1:1.1:message", payload: {} })).toEqual({
      origin: { kind: "bridge", source: "messaging", event_id: "C1:1.1:message" },
      trust: "operator",
    });
  });
});

describe("trust", () => {
  test("a tenant_admin token states as the operator, any other as an agent", () => {
    expect(callerProvenance({ sub: "ana", roles: ["tenant_admin"], admin: false }).trust).toBe("operator");
    expect(callerProvenance({ sub: "bot", roles: ["agent", "curator"], admin: false })).toEqual({
      origin: { kind: "agent", sub: "bot" },
      trust: "agent",
    });
  });

  test("the ladder: lowest of none is unverified; atLeast is inclusive", () => {
    expect(lowestTrust([])).toBe("unverified");
    expect(lowestTrust(["verified", "agent", "operator"])).toBe("agent");
    expect(atLeast("agent", "agent")).toBe(true);
    expect(atLeast("extracted", "agent")).toBe(false);
  });

  test("an entry's own origin is kept as stored; a stored one without gets the legacy reading", () => {
    const stamped = {
      created_by: "x",
      origin: { kind: "agent" as const, sub: "x" },
      trust: "agent" as const,
    };
    expect(withProvenance(stamped)).toBe(stamped);
    expect(
      withProvenance({ created_by: "connector:messaging", source: { system: "messaging" } }),
    ).toMatchObject({
      origin: { kind: "legacy", created_by: "connector:messaging", source: "messaging" },
      trust: "operator",
    });
  });
});

describe("a replayed dead letter", () => {
  test("is written with the source's origin, digested from the event as kept (no delivery id)", async () => {
    const h = await startHarness();
    try {
      const t = await h.createTenant();
      acceptData(h, t.tenant_id);
      const admin = (method: string, path: string) => h.call(method, path, { token: h.adminToken });
      expect((await admin("POST", `/admin/tenants/${t.tenant_id}/suspend`)).status).toBe(200);
      const { summary } = await postDataDelivery(h, t.tenant_id, "kept while suspended");
      expect(summary.dead_lettered).toHaveLength(1);
      const letters = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenant_id}`, {
        token: h.adminToken,
      });
      const [letter] = letters.body.dead_letters;
      expect((await admin("POST", `/admin/tenants/${t.tenant_id}/resume`)).status).toBe(200);
      const replay = await h.json("POST", `/admin/webhooks/replay/${t.tenant_id}/${letter.event_id}`, {
        token: h.adminToken,
      });
      expect(replay.body.status).toBe("replayed");
      const entry = await h.json("GET", `/memory/facts/${replay.body.entries[0]}`, { token: t.token });
      expect(entry.body.trust).toBe("verified");
      expect(entry.body.origin).toMatchObject({
        kind: "source",
        source: "data",
        delivery_id: null,
        event_id: letter.event_id,
        payload_sha256: sha256(JSON.stringify(letter.payload)),
        digest_of: "event",
      });
    } finally {
      await h.close();
    }
  });
});
