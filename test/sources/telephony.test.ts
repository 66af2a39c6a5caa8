import { expect, test } from "bun:test";
import { getExpectedTwilioSignature, validateRequest } from "twilio/lib/webhooks/webhooks";
import {
  callStatus,
  inboundSms,
  messageStatus,
  TELEPHONY_AUTH_TOKEN,
  telephonySender,
  twilioForm,
  twilioSignature,
} from "../fakes/senders/telephony.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const FORM = "application/x-www-form-urlencoded";

describeSource({
  sender: telephonySender,
  mapped: [
    {
      name: "inbound SMS",
      body: () => inboundSms("Can we move the demo to Thursday?"),
      eventType: "message.received",
      category: "fact",
      content: "Inbound SMS from +12125550123 to +14155550100: Can we move the demo to Thursday?",
      fields: { tags: ["telephony", "sms", "inbound"], data: { from_city: "NEW YORK", num_segments: 1 } },
    },
    {
      name: "message failed",
      body: () => messageStatus("failed", { ErrorCode: "30007" }),
      eventType: "message.failed",
      category: "exception",
      content:
        /^Message SM[0-9a-f]{32} from \+14155550100 to \+14155550199 failed \(error 30007: message filtered by the carrier\)\.$/,
      fields: { severity: "high", status: "open", data: { error_code: "30007" } },
    },
    {
      name: "message undelivered",
      body: () => messageStatus("undelivered", { ErrorCode: "30003" }),
      eventType: "message.undelivered",
      category: "exception",
      content: "undelivered (error 30003: unreachable destination handset)",
      fields: { severity: "medium", tags: ["telephony", "sms", "undelivered", "30003"] },
    },
    {
      name: "call completed (no decision to resolve)",
      body: () => callStatus("completed", { CallDuration: "125", Duration: "3" }),
      eventType: "call.completed",
      category: "fact",
      content:
        /^Call CA[0-9a-f]{32} from \+14155550100 to \+14155550199 \(outbound-api\) completed after 2 min 5 s\.$/,
      fields: {
        tags: ["outcome", "telephony", "call", "completed"],
        data: { result: "success", duration_s: 125, direction: "outbound-api" },
        valid_from: "2026-11-20T09:58:00.000Z",
      },
    },
  ],
  unmapped: () => messageStatus("delivered"),
  more: ({ tenant, deliver, post, harness, url }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("a form body is read as form fields: encoded characters, '+' for spaces and emoji reach the entry as sent", async () => {
      const t = await tenant();
      const text = "Café & crème: 50% off + free shipping? ✓ 🎉\nReply STOP to opt out";
      const body = inboundSms(text);
      expect(body).toContain("Body=Caf%C3%A9+%26+cr%C3%A8me");
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.content).toEndWith(`: ${text}`);
    });

    test("a media-only MMS (Body sent empty) is a fact naming its attachments", async () => {
      const t = await tenant();
      const body = inboundSms("", { NumMedia: "2", MediaUrl0: "https://api.twilio.com/2010-04-01/m/ME1" });
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.content).toBe("Inbound SMS from +12125550123 to +14155550100 with 2 media attachments");
      expect(entry.data).toMatchObject({
        num_media: 2,
        media_url: "https://api.twilio.com/2010-04-01/m/ME1",
      });
    });

    test("behind a proxy: the signature covers the public URL from X-Forwarded-Proto/-Host, not http://localhost", async () => {
      const t = await tenant();
      const path = `/webhooks/telephony/${t.tenant_id}`;
      const publicUrl = `https://hooks.example.com${path}`;
      const body = inboundSms("via the proxy");
      const signature = twilioSignature(TELEPHONY_AUTH_TOKEN, publicUrl, body);
      const proxied = {
        "content-type": FORM,
        "x-twilio-signature": signature,
        "x-forwarded-proto": "https",
        "x-forwarded-host": "hooks.example.com",
      };
      const res = await harness().call("POST", path, { raw: body, headers: proxied });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
      // The same signature without the proxy's headers is over another URL than the one received.
      const direct = { "content-type": FORM, "x-twilio-signature": signature };
      await expectProblem(
        await harness().call("POST", path, { raw: body, headers: direct }),
        401,
        "unauthorized",
      );
      // And a signature over the local URL does not pass when the proxy says the public one was called.
      const local = twilioSignature(TELEPHONY_AUTH_TOKEN, `http://localhost${path}`, body);
      await expectProblem(
        await harness().call("POST", path, {
          raw: body,
          headers: { ...proxied, "x-twilio-signature": local },
        }),
        401,
        "unauthorized",
      );
    });

    test("the query string of the configured URL is part of what Twilio signs", async () => {
      const t = await tenant();
      const body = inboundSms("with a query");
      const withQuery = `${url(t.tenant_id)}?line=support`;
      const signed = {
        headers: {
          "content-type": FORM,
          "x-twilio-signature": twilioSignature(TELEPHONY_AUTH_TOKEN, withQuery, body),
        },
        body,
      };
      const res = await post(t.tenant_id, { ...signed, query: "?line=support" });
      expect(res.status).toBe(200);
      await expectProblem(await post(t.tenant_id, { ...signed, query: "?line=sales" }), 401, "unauthorized");
    });

    test("each status of one message is its own event: sent is ignored, then undelivered is written", async () => {
      const t = await tenant();
      const sid = "SM0123456789abcdef0123456789abcdef";
      const sent = await deliver(t.tenant_id, messageStatus("sent", {}, sid));
      expect(sent).toMatchObject({ accepted: 0, ignored: 1, duplicates: 0 });
      const undelivered = await deliver(
        t.tenant_id,
        messageStatus("undelivered", { ErrorCode: "30005" }, sid),
      );
      expect(undelivered).toMatchObject({ accepted: 1, ignored: 0, duplicates: 0 });
      const entry = await readEntry(harness(), t.token, "exception", undelivered.entries[0]!);
      expect(entry.source.event_id).toBe(`${sid}:undelivered`);
      expect(entry.content).toContain("(error 30005: unknown destination handset)");
    });

    test("an incoming message without its Body parameter is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const params = Object.fromEntries(new URLSearchParams(inboundSms("x")));
      delete params.Body;
      const summary = await deliver(t.tenant_id, twilioForm(params));
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toEqual([`${params.MessageSid}:received`]);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({
        event_id: `${params.MessageSid}:received`,
        event_type: "message.received",
      });
      expect(dead!.last_error).toContain("Body");
    });

    test("a delivery signed by Twilio's own library is accepted, and its validator accepts our sender's signature", async () => {
      const t = await tenant();
      const body = callStatus("completed", { CallDuration: "42" });
      const params = Object.fromEntries(new URLSearchParams(body));
      const signature = getExpectedTwilioSignature(TELEPHONY_AUTH_TOKEN, url(t.tenant_id), params);
      const res = await post(t.tenant_id, {
        headers: { "content-type": FORM, "x-twilio-signature": signature },
        body,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
      const ours = telephonySender.sign(body, { now: Date.now(), url: url(t.tenant_id) }) as {
        headers: Record<string, string>;
      };
      expect(
        validateRequest(TELEPHONY_AUTH_TOKEN, ours.headers["x-twilio-signature"]!, url(t.tenant_id), params),
      ).toBe(true);
      expect(
        validateRequest(TELEPHONY_AUTH_TOKEN, ours.headers["x-twilio-signature"]!, url("other"), params),
      ).toBe(false);
    });
  },
});
