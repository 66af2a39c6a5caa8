import { expect, test } from "bun:test";
import { connectEvent, docusignSignature, ESIGN_KEY, esignSender } from "../fakes/senders/esign.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";
import { withField } from "./lifecycle-conformance.ts";

const ENVELOPE = /\(([0-9a-f-]{36})\)/;

/** An event of the lifecycle samples' envelope, generated at `time` on 2026-11-20. */
const envelopeAt = (event: string, time: string) =>
  withField(
    connectEvent(event, { envelopeId: "5e1f0c3a-9d2b-4c8e-a7f6-0b1c2d3e4f50" }),
    "generatedDateTime",
    `2026-11-20T${time}:00.000Z`,
  );

describeSource({
  sender: esignSender,
  mapped: [
    {
      name: "envelope sent",
      body: () =>
        connectEvent("envelope-sent", {
          signers: [
            { name: "Dana Scully", email: "dana.scully@example.com", status: "sent", routingOrder: "1" },
            { name: "Walter Skinner", email: "w.skinner@example.com", status: "created", routingOrder: "2" },
          ],
          carbonCopies: [{ name: "Legal", email: "legal@example.com", status: "created", routingOrder: "3" }],
        }),
      eventType: "envelope-sent",
      category: "workflow",
      content:
        /^Envelope "Please DocuSign: Master Services Agreement\.pdf" \([0-9a-f-]{36}\) was sent for signature by Fox Mulder <fox\.mulder@example\.com> to Dana Scully <dana\.scully@example\.com>, Walter Skinner <w\.skinner@example\.com>\.$/,
      fields: {
        steps: [
          "1. signer: Dana Scully <dana.scully@example.com> (sent)",
          "2. signer: Walter Skinner <w.skinner@example.com> (created)",
          "3. cc: Legal <legal@example.com> (created)",
        ],
        tags: ["esign", "envelope", "sent"],
      },
    },
    {
      name: "envelope completed (no decision to resolve)",
      body: () =>
        connectEvent("envelope-completed", {
          signers: [{ name: "Dana Scully", email: "dana.scully@example.com", status: "completed" }],
        }),
      eventType: "envelope-completed",
      category: "fact",
      content: /was completed: signed by Dana Scully <dana\.scully@example\.com>\.$/,
      fields: {
        tags: ["outcome", "esign", "envelope", "completed"],
        data: { result: "success", status: "completed", sender: "Fox Mulder <fox.mulder@example.com>" },
      },
    },
    {
      name: "envelope declined, with the signer's reason",
      body: () =>
        connectEvent("envelope-declined", {
          signers: [
            {
              name: "Dana Scully",
              email: "dana.scully@example.com",
              status: "declined",
              declinedDateTime: "2026-11-20T10:12:55.12Z",
              declinedReason: "The liability cap in section 9 was not agreed.",
            },
          ],
        }),
      eventType: "envelope-declined",
      category: "exception",
      content:
        'was declined by Dana Scully <dana.scully@example.com>: "The liability cap in section 9 was not agreed.".',
      fields: {
        severity: "high",
        // The envelope's end: nothing is left open about it (docs/source-mappings.md, "Lifecycles").
        status: "resolved",
        data: { decline_reason: "The liability cap in section 9 was not agreed." },
      },
    },
  ],
  lifecycles: [
    {
      name: "envelope completed",
      before: [{ body: () => envelopeAt("envelope-sent", "10:00"), category: "workflow", closed: "ended" }],
      closing: { body: () => envelopeAt("envelope-completed", "11:00"), category: "fact" },
    },
    {
      name: "envelope declined",
      before: [{ body: () => envelopeAt("envelope-sent", "10:00"), category: "workflow", closed: "ended" }],
      closing: { body: () => envelopeAt("envelope-declined", "11:00"), category: "exception" },
    },
  ],
  unmapped: () => connectEvent("envelope-delivered"),
  more: ({ tenant, deliver, harness }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("the event id is event, envelope and generatedDateTime: a retry (retryCount + 1) is a duplicate", async () => {
      const t = await tenant();
      const body = connectEvent("envelope-completed");
      const first = await deliver(t.tenant_id, body);
      const retry = JSON.stringify({ ...JSON.parse(body), retryCount: 1 });
      const again = await deliver(t.tenant_id, retry);
      expect(again).toMatchObject({ accepted: 0, duplicates: 1 });
      const { event, data, generatedDateTime } = JSON.parse(body);
      const entry = await readEntry(harness(), t.token, "fact", first.entries[0]!);
      expect(entry.source.event_id).toBe(`${event}:${data.envelopeId}:${generatedDateTime}`);
      expect(entry.content).toMatch(ENVELOPE);
      expect(entry.valid_from).toBe(new Date(Date.parse(generatedDateTime)).toISOString());
    });

    test("a decline without a reason says so", async () => {
      const t = await tenant();
      const body = connectEvent("envelope-declined", {
        signers: [{ name: "Dana Scully", email: "dana.scully@example.com", status: "declined" }],
      });
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "exception", summary.entries[0]!);
      expect(entry.content).toEndWith(
        "was declined by Dana Scully <dana.scully@example.com> (no reason given).",
      );
    });

    test("only the second of two numbered signatures is valid (a key being rotated) → accepted", async () => {
      const t = await tenant();
      const body = connectEvent("envelope-sent");
      const res = await harness().call("POST", `/webhooks/esign/${t.tenant_id}`, {
        raw: body,
        headers: {
          "content-type": "application/json",
          "x-docusign-signature-1": docusignSignature("a-retired-connect-key", body),
          "x-docusign-signature-2": docusignSignature(ESIGN_KEY, body),
        },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
    });

    test("an event without its envelope id is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = connectEvent("envelope-completed", { envelopeId: null });
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toHaveLength(1);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: summary.dead_lettered[0], event_type: "envelope-completed" });
      expect(dead!.last_error).toContain("data.envelopeId");
    });
  },
});
