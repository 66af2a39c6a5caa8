import { describe, expect, test } from "bun:test";
import { formatSize, inline, renderDay } from "../../src/mail-ingest/render.ts";
import { attachmentPart, mailMessage, multipart, textPart } from "../fakes/mail-messages.ts";

const at = (h: number, m = 0) => Date.UTC(2026, 10, 20, h, m);

const messages = [
  mailMessage({ id: "m2", threadId: "t1", at: at(10), from: "Bob <bob@example.com>", subject: "Re: Plan" }),
  mailMessage({ id: "m1", threadId: "t1", at: at(9), from: "Ada <ada@example.com>", subject: "Plan" }),
  mailMessage({ id: "m3", threadId: "t2", at: at(9, 30), from: "Cy <cy@example.com>", subject: "Lunch?" }),
];

describe("renderDay", () => {
  test("threads in order of their first message, messages by receipt time, whatever the input order", () => {
    const input = { title: "Label Team", day: "2026-11-20", timeZone: "UTC" };
    const a = renderDay({ ...input, messages });
    const b = renderDay({ ...input, messages: [...messages].reverse() });
    expect(a).toBe(b);
    const order = [...a.matchAll(/^(##+) (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(order).toEqual([
      "## Plan",
      "### 09:00 · Ada \\<ada@example.com\\>",
      "### 10:00 · Bob \\<bob@example.com\\>",
      "## Lunch?",
      "### 09:30 · Cy \\<cy@example.com\\>",
    ]);
    expect(a.startsWith("# Label Team — 2026-11-20\n\n2 threads, 3 messages.")).toBe(true);
    expect(a.endsWith("\n")).toBe(true);
  });

  test("each message shows subject, from, to, cc, date and its body in a fence", () => {
    const m = mailMessage({
      id: "m9",
      threadId: "t9",
      at: at(8, 5),
      from: "=?UTF-8?Q?Zo=C3=AB?= <zoe@example.com>",
      to: "team@example.com",
      cc: "boss@example.com",
      subject: "=?UTF-8?B?w4l0w6k=?=",
      payload: textPart("Line 1\n# not a heading\nLine 3"),
    });
    const out = renderDay({ title: "Search x", day: "2026-11-20", timeZone: "Europe/Paris", messages: [m] });
    expect(out).toContain(
      [
        "## Été",
        "",
        "### 09:05 · Zoë \\<zoe@example.com\\>",
        "",
        "- **Subject:** Été",
        "- **From:** Zoë \\<zoe@example.com\\>",
        "- **To:** team@example.com",
        "- **Cc:** boss@example.com",
        "- **Date:** 2026-11-20 09:05:00 +01:00",
        "",
        "```text",
        "Line 1",
        "# not a heading",
        "Line 3",
        "```",
      ].join("\n"),
    );
  });

  test("a body holding a fence is put in a longer one", () => {
    const m = mailMessage({
      id: "m",
      threadId: "t",
      at: at(9),
      from: "a",
      subject: "s",
      payload: textPart("```js\nx\n```"),
    });
    expect(renderDay({ title: "L", day: "2026-11-20", timeZone: "UTC", messages: [m] })).toContain(
      "````text\n```js\nx\n```\n````",
    );
  });

  test("attachments are listed with type and size; an empty body says so", () => {
    const payload = multipart("mixed", [
      textPart(""),
      attachmentPart("report_q3.pdf", "application/pdf", 1_572_864, "a1"),
    ]);
    const m = mailMessage({ id: "m", threadId: "t", at: at(9), from: "a", subject: "s", payload });
    const out = renderDay({ title: "L", day: "2026-11-20", timeZone: "UTC", messages: [m] });
    expect(out).toContain(
      "_(no text)_\n\nAttachments (listed, not downloaded):\n\n- report\\_q3.pdf (application/pdf, 1.5 MiB)\n",
    );
  });

  test("a thread with messages on other days links to those days' files", () => {
    const threadDays = new Map([["t1", ["2026-11-19", "2026-11-20", "2026-11-22"]]]);
    const out = renderDay({ title: "L", day: "2026-11-20", timeZone: "UTC", messages, threadDays });
    expect(out).toContain(
      "## Plan\n\nThis thread also has messages on [2026-11-19](2026-11-19.md), [2026-11-22](2026-11-22.md).",
    );
    expect(out).not.toContain("## Lunch?\n\nThis thread");
  });
});

describe("inline and formatSize", () => {
  test("Markdown's active characters are escaped", () => {
    expect(inline("*a* _b_ [c](d) <e> `f` #g |h \\")).toBe(
      "\\*a\\* \\_b\\_ \\[c\\](d) \\<e\\> \\`f\\` \\#g \\|h \\\\",
    );
  });

  test("sizes in bytes, KiB, MiB", () => {
    expect(formatSize(0)).toBe("0 B");
    expect(formatSize(1023)).toBe("1023 B");
    expect(formatSize(48_213)).toBe("47.1 KiB");
    expect(formatSize(3 * 1024 ** 3)).toBe("3.0 GiB");
  });
});
