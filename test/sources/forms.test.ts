import { expect, test } from "bun:test";
import { FORMS_SECRET, formsSender, typeformEvent, typeformSignature } from "../fakes/senders/forms.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const EXPECTED = [
  'Typeform response to "Enterprise demo request" (form lT4Z3j), submitted 2026-11-20T09:47:35Z:',
  "- What is your name?: Laura Palmer",
  "- What is your email?: laura@example.com",
  "- Which plan are you interested in?: Enterprise",
  "- Which integrations matter?: Salesforce, Slack, Jira",
  "- How many seats?: 250",
  "- Do you need SSO?: yes",
  "- Anything else we should know?: We must go live before the Q1 audit.",
  "Hidden fields: utm_source=newsletter, account_id=acct_8812",
  "Score: 9",
].join("\n");

describeSource({
  sender: formsSender,
  mapped: [
    {
      name: "form response",
      body: () => typeformEvent(),
      eventType: "form_response",
      category: "fact",
      content: EXPECTED,
      fields: {
        tags: ["forms", "form_response", "lT4Z3j"],
        valid_from: "2026-11-20T09:47:35.000Z",
        data: {
          form_id: "lT4Z3j",
          form_title: "Enterprise demo request",
          landed_at: "2026-11-20T09:41:02Z",
          answer_count: 7,
          hidden: { utm_source: "newsletter", account_id: "acct_8812" },
          answers: { plan: "Enterprise", seats: "250", sso: "yes" },
        },
      },
    },
  ],
  // Partial responses are a real Typeform event type (opt-in); only submitted responses are covered.
  unmapped: () => typeformEvent(undefined, { submitted_at: undefined }, "form_response_partial"),
  more: ({ tenant, deliver, harness }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("the entry keeps the response token, and the event id is Typeform's event_id", async () => {
      const t = await tenant();
      const body = typeformEvent();
      const { event_id, form_response } = JSON.parse(body);
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.source.event_id).toBe(event_id);
      expect(entry.data).toMatchObject({ response_token: form_response.token });
    });

    test("a long response stays bounded: answers are clipped and the list ends with a count of the rest", async () => {
      const t = await tenant();
      const answers = Array.from({ length: 150 }, (_, i) => ({
        type: "text",
        text: i === 0 ? "x".repeat(50_000) : `answer ${i}`,
        field: { id: `f${i}`, type: "short_text", ref: `ref_${i}` },
      }));
      const summary = await deliver(t.tenant_id, typeformEvent(answers));
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.content.length).toBeLessThan(20_000);
      expect(entry.content).toContain(`- ref_0: ${"x".repeat(990)}`);
      expect(entry.content).toContain("- ref_99: answer 99");
      expect(entry.content).not.toContain("ref_100");
      expect(entry.content).toContain("(and 50 more answers)");
      expect(entry.data?.answer_count).toBe(150);
      expect(Buffer.byteLength(JSON.stringify(entry.data))).toBeLessThanOrEqual(16 * 1024);
    });

    test("a response with no answers is still a fact saying so", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        typeformEvent([], { hidden: undefined, calculated: undefined }),
      );
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.content).toEndWith("submitted 2026-11-20T09:47:35Z:\n- (no answers)");
    });

    test("an event without form_response is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = JSON.stringify({ event_id: "01JNOFORMRESPONSE", event_type: "form_response" });
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toEqual({
        accepted: 0,
        entries: [],
        duplicates: 0,
        dead_lettered: ["01JNOFORMRESPONSE"],
        ignored: 0,
      });
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: "01JNOFORMRESPONSE", event_type: "form_response" });
      expect(dead!.last_error).toContain("form_response");
    });

    test("the signature is Typeform's: base64 (not hex) after sha256=", async () => {
      const t = await tenant();
      const body = typeformEvent();
      const header = typeformSignature(FORMS_SECRET, body);
      expect(header).toMatch(/^sha256=[A-Za-z0-9+/]{43}=$/);
      const hex = `sha256=${Buffer.from(header.slice(7), "base64").toString("hex")}`;
      const res = await harness().call("POST", `/webhooks/forms/${t.tenant_id}`, {
        raw: body,
        headers: { "content-type": "application/json", "typeform-signature": hex },
      });
      expect(res.status).toBe(401);
    });
  },
});
