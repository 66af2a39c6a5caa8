import { describe, expect, test } from "bun:test";
import { headerParam, messageContent } from "../../src/mail-ingest/mime.ts";
import type { MessagePart } from "../../src/sources/mail/api.ts";
import { attachmentPart, base64url, multipart, textPart } from "../fakes/mail-messages.ts";

describe("messageContent", () => {
  test("a single text/plain body is decoded from base64url, CRLF made LF, trailing spaces gone", () => {
    const { text, attachments } = messageContent(textPart("Hello Zoë,  \r\nsee you → soon?\r\n\r\n"));
    expect(text).toBe("Hello Zoë,\nsee you → soon?");
    expect(attachments).toEqual([]);
  });

  test("a body in another charset is read in it", () => {
    const latin1 = Uint8Array.from(Buffer.from("Café crème", "latin1"));
    expect(messageContent(textPart("", "text/plain", "ISO-8859-1", latin1)).text).toBe("Café crème");
  });

  test("of multipart/alternative, the plain version is read, not the HTML one", () => {
    const part = multipart("alternative", [
      textPart("Plain version"),
      textPart("<p>HTML version</p>", "text/html"),
    ]);
    expect(messageContent(part).text).toBe("Plain version");
  });

  test("an HTML-only message is turned into text", () => {
    const part = multipart("alternative", [
      textPart("", "text/plain"),
      textPart("<p>Only&nbsp;HTML</p><ul><li>one</li></ul>", "text/html"),
    ]);
    expect(messageContent(part).text).toBe("Only HTML\n\n- one");
    expect(messageContent(textPart("<div>Bare <b>HTML</b></div>", "text/html")).text).toBe("Bare HTML");
  });

  test("attachments are listed by name, type and size, never read; their bytes are not in the text", () => {
    const part = multipart("mixed", [
      multipart("alternative", [
        textPart("See attached."),
        multipart("related", [
          textPart('<p>See attached.</p><img src="cid:logo">', "text/html"),
          attachmentPart("logo.png", "image/png", 2048, "att-logo"),
        ]),
      ]),
      attachmentPart("invoice.pdf", "application/pdf", 48_213, "att-1"),
      attachmentPart("=?UTF-8?B?w6l0w6kuY3N2?=", "text/csv", 12, "att-2"),
    ]);
    const { text, attachments } = messageContent(part);
    expect(text).toBe("See attached.");
    expect(attachments).toEqual([
      { filename: "logo.png", mimeType: "image/png", size: 2048 },
      { filename: "invoice.pdf", mimeType: "application/pdf", size: 48_213 },
      { filename: "été.csv", mimeType: "text/csv", size: 12 },
    ]);
  });

  test("a part with no filename field is named from its headers (RFC 2231), else (unnamed)", () => {
    const named: MessagePart = {
      mimeType: "application/pdf",
      headers: [{ name: "Content-Disposition", value: "attachment; filename*=UTF-8''%E2%82%AC%20rates.pdf" }],
      body: { size: 10, attachmentId: "a" },
    };
    const anonymous: MessagePart = { mimeType: "image/jpeg", body: { size: 5, attachmentId: "b" } };
    expect(messageContent(multipart("mixed", [textPart("x"), named, anonymous])).attachments).toEqual([
      { filename: "€ rates.pdf", mimeType: "application/pdf", size: 10 },
      { filename: "(unnamed)", mimeType: "image/jpeg", size: 5 },
    ]);
  });

  test("text parts of a multipart/mixed are read in order", () => {
    const part = multipart("mixed", [
      textPart("First"),
      textPart("<p>Second</p>", "text/html"),
      textPart("Third"),
    ]);
    expect(messageContent(part).text).toBe("First\n\nSecond\n\nThird");
  });

  test("no payload, or a body without data, gives no text", () => {
    expect(messageContent(undefined)).toEqual({ text: "", attachments: [] });
    expect(messageContent({ mimeType: "text/plain", body: { size: 0 } }).text).toBe("");
  });

  test("standard base64 (with + and /) is read as well as base64url", () => {
    const data = Buffer.from("??>>??").toString("base64");
    expect(data).toMatch(/[+/]/);
    expect(messageContent({ mimeType: "text/plain", body: { data } }).text).toBe("??>>??");
    expect(base64url("??>>??")).not.toMatch(/[+/]/);
  });
});

describe("headerParam", () => {
  test("reads quoted, bare and RFC 2231 extended parameters", () => {
    expect(headerParam('text/plain; charset="iso-8859-1"', "charset")).toBe("iso-8859-1");
    expect(headerParam("text/plain; format=flowed; charset=utf-8", "charset")).toBe("utf-8");
    expect(headerParam("attachment; filename*=iso-8859-1'fr'caf%E9.txt", "filename")).toBe("café.txt");
    expect(headerParam("text/plain", "charset")).toBeUndefined();
  });
});
