import { describe, expect, test } from "bun:test";
import type { HistoryRecord, MessageMeta } from "../../../src/sources/mail/api.ts";
import { mapMailHistory, mapMailMessage } from "../../../src/sources/mail/history.ts";
import { validDrafts } from "../support.ts";

const EMAIL = "ops@example.com";

function meta(
  id: string,
  threadId: string,
  from: string,
  subject: string,
  snippet: string,
  internalDate = "1795000000000",
): MessageMeta {
  return {
    id,
    threadId,
    labelIds: ["INBOX"],
    snippet,
    internalDate,
    payload: {
      headers: [
        { name: "from", value: from },
        { name: "Subject", value: subject },
      ],
    },
  };
}

const messages = new Map<string, MessageMeta>([
  ["m1", meta("m1", "t1", "Ada <ada@example.com>", "Invoice 42", "Please find the invoice attached")],
  ["m2", meta("m2", "t1", "ops@example.com", "Re: Invoice 42", "Paid, thanks &#39;Ada&#39;")],
  ["m3", meta("m3", "t9", "Bob <bob@example.com>", "Old thread", "Following up")],
  ["m4", meta("m4", "t4", "Cy <cy@example.com>", "Draft", "unsent")],
]);

function msg(id: string, threadId: string, labelIds = ["INBOX"]) {
  return { message: { id, threadId, labelIds } };
}

function run(history: HistoryRecord[], seenThreads = new Set<string>()) {
  const { drafts } = mapMailHistory({ history, messages, seenThreads, email: EMAIL, eventId: "push-77" });
  validDrafts({ ok: true, drafts });
  return drafts;
}

describe("mapMailHistory", () => {
  test("a new message → fact with sender, subject, excerpt and thread id", () => {
    const [only, ...rest] = run([{ id: "11", messagesAdded: [msg("m1", "t1")] }]);
    expect(rest).toEqual([]);
    expect(only!.draft).toMatchObject({
      category: "fact",
      content: 'New mail from Ada <ada@example.com>: "Invoice 42" (Please find the invoice attached).',
      tags: ["mail"],
      valid_from: new Date(1795000000000).toISOString(),
      source: { system: "mail", event_id: "push-77", event_type: "mail.message_added" },
      data: {
        from: "Ada <ada@example.com>",
        subject: "Invoice 42",
        excerpt: "Please find the invoice attached",
        thread_id: "t1",
        message_id: "m1",
        history_id: "11",
      },
    });
    expect(only!.object_key).toBe("mail:thread:t1");
  });

  test("a reply in a thread seen earlier in the batch → decision (thread resolution)", () => {
    const drafts = run([
      { id: "11", messagesAdded: [msg("m1", "t1")] },
      { id: "12", messagesAdded: [msg("m2", "t1", ["SENT"])] },
    ]);
    expect(drafts.map((d) => d.draft.category)).toEqual(["fact", "decision"]);
    expect(drafts[1]!.draft).toMatchObject({
      stage: "thread_resolution",
      content: `ops@example.com answered in the thread "Re: Invoice 42": Paid, thanks 'Ada'.`,
    });
  });

  test("a message in a thread seen before this batch → decision; the caller's set is not changed", () => {
    const seen = new Set(["t9"]);
    const drafts = run([{ id: "13", messagesAdded: [msg("m3", "t9")] }], seen);
    expect(drafts[0]!.draft.category).toBe("decision");
    expect([...seen]).toEqual(["t9"]);
  });

  test("labels added → fact with the labels as tags", () => {
    const [labelled] = run([
      { id: "14", labelsAdded: [{ ...msg("m1", "t1"), labelIds: ["IMPORTANT", "Label_7"] }] },
    ]);
    expect(labelled!.draft).toMatchObject({
      category: "fact",
      tags: ["mail", "IMPORTANT", "Label_7"],
      content: 'Mail "Invoice 42" from Ada <ada@example.com> was labelled IMPORTANT, Label_7.',
      source: { event_type: "mail.labels_added" },
    });
  });

  test("drafts, messages gone before they were read, repeats and junk records are skipped", () => {
    const drafts = run([
      {
        id: "15",
        messagesAdded: [msg("m4", "t4", ["DRAFT"]), msg("gone", "t5"), msg("m1", "t1"), msg("m1", "t1")],
      },
      { id: "16", labelsAdded: [{ ...msg("m1", "t1"), labelIds: [] }] },
      { id: "17", messagesAdded: [{ message: { id: 5 } } as never], labelsAdded: [null as never] },
      null as never,
    ]);
    expect(drafts).toHaveLength(1);
  });
});

describe("mapMailHistory: messages lacking what their entry needs", () => {
  const bare = (id: string, threadId: string, headers: { name: string; value: string }[]): MessageMeta => ({
    id,
    threadId,
    labelIds: ["INBOX"],
    snippet: "Hello",
    internalDate: "1795000000000",
    payload: { headers },
  });
  const mailbox = new Map<string, MessageMeta>([
    ["m1", messages.get("m1")!],
    [
      "nofrom",
      bare("nofrom", "t7", [
        { name: "Subject", value: "Who?" },
        { name: "From", value: "unknown" },
      ]),
    ],
    ["nosubject", bare("nosubject", "t8", [{ name: "From", value: "Dee <dee@example.com>" }])],
  ]);
  const expand = (history: HistoryRecord[]) =>
    mapMailHistory({ history, messages: mailbox, seenThreads: new Set(), email: EMAIL, eventId: "push-9" });

  test("a message whose sender is missing (or a placeholder) is split off, the rest written", () => {
    const { drafts, rejected } = expand([
      { id: "21", messagesAdded: [msg("m1", "t1"), msg("nofrom", "t7")] },
      { id: "22", labelsAdded: [{ ...msg("nofrom", "t7"), labelIds: ["IMPORTANT"] }] },
    ]);
    validDrafts({ ok: true, drafts });
    expect(drafts.map((d) => d.draft.content)).toEqual([
      'New mail from Ada <ada@example.com>: "Invoice 42" (Please find the invoice attached).',
      'Mail "Who?" was labelled IMPORTANT.',
    ]);
    expect(rejected).toEqual([
      {
        event: {
          event_id: "push-9:nofrom:message_added",
          event_type: "mail.message_added",
          payload: expect.objectContaining({
            mailbox: EMAIL,
            history_id: "21",
            message: expect.objectContaining({ id: "nofrom", thread_id: "t7", headers: { Subject: "Who?" } }),
          }),
        },
        reason: "missing_field",
        detail: "message.headers.From",
      },
    ]);
  });

  test("a message without a subject is written without one, never with a placeholder", () => {
    const { drafts, rejected } = expand([{ id: "23", messagesAdded: [msg("nosubject", "t8")] }]);
    expect(rejected).toEqual([]);
    expect(drafts[0]!.draft.content).toBe("New mail from Dee <dee@example.com> without a subject (Hello).");
    expect(drafts[0]!.draft.data).not.toHaveProperty("subject");
  });

  test("the split-off message maps again from what its dead letter keeps (a replay)", () => {
    const [split] = expand([{ id: "21", messagesAdded: [msg("nofrom", "t7")] }]).rejected;
    expect(mapMailMessage(split!.event)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "message.headers.From",
    });
    const payload = split!.event.payload as { message: { headers: Record<string, string> } };
    const fixed = { ...payload, message: { ...payload.message, headers: { From: "Eve <eve@example.com>" } } };
    const result = mapMailMessage({ ...split!.event, payload: fixed });
    const [only] = validDrafts(result);
    expect(only!.draft).toMatchObject({
      category: "fact",
      content: "New mail from Eve <eve@example.com> without a subject (Hello).",
      source: { system: "mail", event_id: "push-9:nofrom:message_added", event_type: "mail.message_added" },
    });
    expect(only!.object_key).toBe("mail:thread:t7");
  });
});
