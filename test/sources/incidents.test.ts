import { expect, test } from "bun:test";
import { NOTHING_WRITTEN } from "../../src/sources/kit/define-source.ts";
import {
  INCIDENTS_SECRET,
  incident,
  incidentsSender,
  pagerdutyEvent,
  pagerdutySignature,
  pageyPing,
} from "../fakes/senders/incidents.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";
import { withField } from "./lifecycle-conformance.ts";

const ada = {
  html_url: "https://acme.pagerduty.com/users/PAM4FGS",
  id: "PAM4FGS",
  self: "https://api.pagerduty.com/users/PAM4FGS",
  summary: "Ada Lovelace",
  type: "user_reference",
};

/** The event at another time (its `occurred_at`). */
const earlier = (body: string, at: string) => withField(body, "event.occurred_at", at);

describeSource({
  sender: incidentsSender,
  mapped: [
    {
      name: "incident triggered (high urgency, P1)",
      body: () => pagerdutyEvent("incident.triggered", incident({ id: "PT4KHLK" }), null),
      eventType: "incident.triggered",
      category: "exception",
      content:
        'Incident #1234 "The server is on fire." on My Mail Service was triggered (high urgency, P1), assigned to Earline Greenholt: https://acme.pagerduty.com/incidents/PT4KHLK',
      fields: {
        severity: "critical",
        status: "open",
        tags: ["incidents", "incident", "triggered", "high", "My Mail Service"],
        data: { incident_id: "PT4KHLK", urgency: "high", priority: "P1", teams: ["Engineering"] },
        valid_from: "2026-11-21T09:58:04.123Z",
      },
    },
    {
      name: "incident acknowledged",
      body: () => pagerdutyEvent("incident.acknowledged", incident({ status: "acknowledged" })),
      eventType: "incident.acknowledged",
      category: "workflow",
      content:
        /^Incident #1234 "The server is on fire\." on My Mail Service was acknowledged by Earline Greenholt: https:\/\/acme\.pagerduty\.com\/incidents\/Q\w+$/,
      fields: { data: { status: "acknowledged", agent: "Earline Greenholt" } },
    },
    {
      name: "incident escalated",
      body: () => pagerdutyEvent("incident.escalated", incident({ assignees: [ada] }), null),
      eventType: "incident.escalated",
      category: "decision",
      content:
        /^Incident #1234 "The server is on fire\." on My Mail Service was escalated to Ada Lovelace under escalation policy Default: /,
      fields: { stage: "escalated", chosen: "Ada Lovelace", status: "open" },
    },
    {
      name: "incident resolved (no decision to resolve)",
      body: () => pagerdutyEvent("incident.resolved", incident({ status: "resolved" })),
      eventType: "incident.resolved",
      category: "fact",
      content:
        /^Incident #1234 "The server is on fire\." on My Mail Service was resolved by Earline Greenholt: /,
      fields: {
        tags: ["outcome", "incidents", "incident", "resolved", "high", "My Mail Service"],
        data: { result: "success", status: "resolved" },
      },
    },
  ],
  lifecycles: [
    {
      name: "incident resolved",
      before: [
        {
          body: () =>
            earlier(
              pagerdutyEvent("incident.triggered", incident({ id: "PLIFE01" }), null),
              "2026-11-21T08:00:00.000Z",
            ),
          category: "exception",
          closed: "resolved",
        },
        {
          body: () =>
            earlier(
              pagerdutyEvent("incident.acknowledged", incident({ id: "PLIFE01" })),
              "2026-11-21T09:00:00.000Z",
            ),
          category: "workflow",
          closed: "ended",
        },
      ],
      closing: {
        body: () => pagerdutyEvent("incident.resolved", incident({ id: "PLIFE01", status: "resolved" })),
        category: "fact",
      },
    },
  ],
  unmapped: () =>
    pagerdutyEvent("incident.annotated", {
      incident: { id: "PT4KHLK", type: "incident_reference" },
      id: "P7P9S3G",
      content: "Rolled back the 09:40 deploy.",
      trimmed: false,
      type: "incident_note",
    }),
  more: ({ tenant, deliver, post, harness, clock, url }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("pagey.ping is answered 200 after the signature check, with nothing written", async () => {
      const t = await tenant();
      const res = await post(
        t.tenant_id,
        await incidentsSender.sign(pageyPing(), { now: clock.now(), url: url(t.tenant_id) }),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(NOTHING_WRITTEN);
      expect(await entries(t.tenant_id)).toBe(0);
      expect(await deadLetters(harness(), t.tenant_id)).toEqual([]);
    });

    test("a ping signed with another secret → 401", async () => {
      const t = await tenant();
      const body = pageyPing();
      const res = await post(t.tenant_id, {
        body,
        headers: {
          "content-type": "application/json",
          "x-pagerduty-signature": pagerdutySignature("not it", body),
        },
      });
      await expectProblem(res, 401, "unauthorized");
    });

    test("the resolution of an escalated incident is the outcome resolving the escalation", async () => {
      const t = await tenant();
      const data = incident({ assignees: [ada] });
      const decision = await deliver(t.tenant_id, pagerdutyEvent("incident.escalated", data));
      const outcome = await deliver(
        t.tenant_id,
        pagerdutyEvent("incident.resolved", { ...data, status: "resolved" }),
      );
      const entry = await readEntry(harness(), t.token, "outcome", outcome.entries[0]!);
      expect(entry).toMatchObject({ decision_id: decision.entries[0], result: "success" });
      const resolved = await readEntry(harness(), t.token, "decision", decision.entries[0]!);
      expect(resolved.status).toBe("resolved");
    });

    test("the resolution of another incident does not resolve the escalation", async () => {
      const t = await tenant();
      const decision = await deliver(t.tenant_id, pagerdutyEvent("incident.escalated", incident()));
      const other = await deliver(t.tenant_id, pagerdutyEvent("incident.resolved", incident()));
      await readEntry(harness(), t.token, "fact", other.entries[0]!);
      expect((await readEntry(harness(), t.token, "decision", decision.entries[0]!)).status).toBe("open");
    });

    test("severity follows urgency: high without P1 → high, low → low", async () => {
      const t = await tenant();
      const p2 = await deliver(
        t.tenant_id,
        pagerdutyEvent("incident.triggered", incident({ priority: { id: "P53ZZH5", summary: "P2" } })),
      );
      expect((await readEntry(harness(), t.token, "exception", p2.entries[0]!)).severity).toBe("high");
      const low = await deliver(
        t.tenant_id,
        pagerdutyEvent("incident.triggered", incident({ urgency: "low", priority: null })),
      );
      const entry = await readEntry(harness(), t.token, "exception", low.entries[0]!);
      expect(entry.severity).toBe("low");
      expect(entry.content).toContain("was triggered (low urgency)");
    });

    test("the event id is event.id", async () => {
      const t = await tenant();
      const body = pagerdutyEvent("incident.acknowledged");
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.source.event_id).toBe(JSON.parse(body).event.id);
    });

    test("an escalation without its incident id is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = pagerdutyEvent("incident.escalated", incident({ id: null }));
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toEqual([JSON.parse(body).event.id]);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_type: "incident.escalated" });
      expect(dead!.last_error).toContain("data.id");
    });

    test("signatures separated by a comma and a space are each read", async () => {
      const t = await tenant();
      const body = pagerdutyEvent("incident.acknowledged");
      const header = `${pagerdutySignature("retired", body)}, ${pagerdutySignature(INCIDENTS_SECRET, body)}`;
      const res = await post(t.tenant_id, {
        body,
        headers: { "content-type": "application/json", "x-pagerduty-signature": header },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
    });

    test("a signed body without an event → 400", async () => {
      const t = await tenant();
      const body = JSON.stringify({ messages: [] });
      const res = await post(
        t.tenant_id,
        await incidentsSender.sign(body, { now: clock.now(), url: url(t.tenant_id) }),
      );
      expect(res.status).toBe(400);
      expect(await entries(t.tenant_id)).toBe(0);
    });
  },
});
