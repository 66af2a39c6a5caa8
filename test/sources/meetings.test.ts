import { expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  meetingEnded,
  meetingsSender,
  participantJoined,
  URL_VALIDATION,
  zoomHeaders,
} from "../fakes/senders/meetings.ts";
import type { Signed } from "../fakes/senders/sender.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry, setSecrets } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

describeSource({
  sender: meetingsSender,
  mapped: [
    {
      name: "meeting ended",
      body: () => meetingEnded(),
      eventType: "meeting.ended",
      category: "fact",
      content:
        'Zoom meeting "Q4 pipeline review" (85746065432) hosted by z8yBXksmRoSr0NfEHs6X9w ended; it ran from 2026-11-20T15:00:12Z to 2026-11-20T16:02:40Z (62 min).',
      fields: {
        tags: ["meetings", "meeting", "ended"],
        valid_from: "2026-11-20T16:02:40.000Z",
        data: { meeting_id: "85746065432", duration_min: 62, scheduled_duration_min: 60 },
      },
    },
    {
      name: "participant joined",
      body: () => participantJoined(),
      eventType: "meeting.participant_joined",
      category: "relationship",
      content:
        'Jill Chill <jill.chill@example.com> joined Zoom meeting "Q4 pipeline review" (85746065432) at 2026-11-20T15:01:05Z.',
      fields: {
        subject: "Jill Chill <jill.chill@example.com>",
        predicate: "joined meeting",
        object: 'Zoom meeting "Q4 pipeline review" (85746065432)',
        valid_from: "2026-11-20T15:01:05.000Z",
      },
    },
  ],
  unmapped: () =>
    JSON.stringify({
      event: "meeting.started",
      event_ts: 1763650812000,
      payload: {
        account_id: "AAAAAABBBB-CCDDEEFF",
        object: {
          id: "85746065432",
          uuid: "4444AAAiAAAAAiAiAiiAii==",
          host_id: "z8yBXksmRoSr0NfEHs6X9w",
          topic: "Q4 pipeline review",
          type: 2,
          start_time: "2026-11-20T15:00:12Z",
          timezone: "Europe/Paris",
          duration: 60,
        },
      },
    }),
  more: ({ tenant, deliver, post, harness, clock }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("endpoint.url_validation is answered with the token's HMAC as JSON, and writes nothing", async () => {
      const t = await tenant();
      // A fixed vector: Zoom's documented request under the secret token "secretValueTest".
      setSecrets(harness(), t.tenant_id, { MEETINGS_SECRET_TOKEN: "secretValueTest" });
      const res = await post(t.tenant_id, {
        headers: zoomHeaders("secretValueTest", clock.now(), URL_VALIDATION),
        body: URL_VALIDATION,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(await res.json()).toEqual({
        plainToken: "qgg8vlvZRS6UYooatFL8Aw",
        encryptedToken: "70c1f2e2e6ca2d39297490d1f9142c7d701415ea8e6151f6562a08fa657a40ff",
      });
      expect(createHmac("sha256", "secretValueTest").update("qgg8vlvZRS6UYooatFL8Aw").digest("hex")).toBe(
        "70c1f2e2e6ca2d39297490d1f9142c7d701415ea8e6151f6562a08fa657a40ff",
      );
      expect(await entries(t.tenant_id)).toBe(0);
      expect(await deadLetters(harness(), t.tenant_id)).toEqual([]);
    });

    test("an unsigned url_validation is refused: the answer would sign any token the caller chose", async () => {
      const t = await tenant();
      const now = Math.floor(clock.now() / 1000);
      // The token a forger would want signed: what a valid signature of a forged event covers.
      const forged = meetingEnded();
      const wanted = `v0:${now}:${forged}`;
      const body = JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken: wanted } });
      await expectProblem(
        await post(t.tenant_id, { headers: { "content-type": "application/json" }, body }),
        401,
        "unauthorized",
      );
      const wrong = zoomHeaders("not-the-tenant-secret", clock.now(), body);
      await expectProblem(await post(t.tenant_id, { headers: wrong, body }), 401, "unauthorized");
      expect(await entries(t.tenant_id)).toBe(0);
    });

    test("a signed url_validation without plainToken → 400", async () => {
      const t = await tenant();
      const body = JSON.stringify({ event: "endpoint.url_validation", payload: {}, event_ts: 1763650000000 });
      const res = await post(t.tenant_id, meetingsSender.sign(body, { now: clock.now(), url: "" }) as Signed);
      await expectProblem(res, 400, "bad_request");
    });

    test("two participants joining in the same instant are two events (the participant is in the id)", async () => {
      const t = await tenant();
      const meeting = { uuid: "u7Jq1m2ZQ4Kk3wX0aB9cDw==", eventTs: 1763650865123 };
      const jill = await deliver(t.tenant_id, participantJoined({ participant_uuid: "p-jill" }, meeting));
      const omar = await deliver(
        t.tenant_id,
        participantJoined(
          { participant_uuid: "p-omar", user_name: "Omar Haddad", email: "omar@example.com" },
          meeting,
        ),
      );
      expect([jill.accepted, omar.accepted]).toEqual([1, 1]);
      const entry = await readEntry(harness(), t.token, "relationship", omar.entries[0]!);
      expect(entry.source.event_id).toBe(
        "meeting.participant_joined:u7Jq1m2ZQ4Kk3wX0aB9cDw==:p-omar:1763650865123",
      );
      expect(entry.subject).toBe("Omar Haddad <omar@example.com>");
    });

    test("a participant_joined without its participant is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = participantJoined(null, { uuid: "noParticipant==", eventTs: 1763650999000 });
      const summary = await deliver(t.tenant_id, body);
      const id = "meeting.participant_joined:noParticipant==:1763650999000";
      expect(summary).toEqual({ accepted: 0, entries: [], duplicates: 0, dead_lettered: [id], ignored: 0 });
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: id, event_type: "meeting.participant_joined" });
      expect(dead!.last_error).toContain("participant");
    });
  },
});
