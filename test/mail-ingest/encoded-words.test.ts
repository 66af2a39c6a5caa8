import { describe, expect, test } from "bun:test";
import { decodeBytes, decodeEncodedWords, headerText } from "../../src/mail-ingest/encoded-words.ts";

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");

describe("decodeEncodedWords (RFC 2047)", () => {
  test("a B-encoded UTF-8 subject is decoded", () => {
    expect(decodeEncodedWords(`=?UTF-8?B?${b64("Échéance de la facture")}?=`)).toBe("Échéance de la facture");
  });

  test("a Q-encoded Latin-1 word: underscores are spaces, =XX are bytes in that charset", () => {
    expect(decodeEncodedWords("=?ISO-8859-1?Q?Caf=E9_cr=E8me?=")).toBe("Café crème");
  });

  test("encoding letters and charsets are case-insensitive, a language suffix is ignored", () => {
    expect(decodeEncodedWords("=?utf-8*fr?q?R=C3=A9union?=")).toBe("Réunion");
  });

  test("a character split across two adjacent words (folded) comes out whole", () => {
    const bytes = Buffer.from("日本語のメール", "utf8");
    const value = `=?UTF-8?B?${b64(bytes.subarray(0, 4))}?=\r\n =?UTF-8?B?${b64(bytes.subarray(4))}?=`;
    expect(decodeEncodedWords(value)).toBe("日本語のメール");
  });

  test("whitespace between encoded words is dropped; around plain text it stays", () => {
    expect(decodeEncodedWords("Re: =?UTF-8?Q?a?= =?UTF-8?Q?b?= and =?UTF-8?Q?c?=")).toBe("Re: ab and c");
  });

  test("adjacent words in different charsets are each decoded in their own", () => {
    expect(decodeEncodedWords("=?ISO-8859-1?Q?=E9?= =?UTF-8?Q?=C3=A9?=")).toBe("éé");
  });

  test("text without encoded words, or with malformed ones, is left as it is", () => {
    expect(decodeEncodedWords("Plain subject")).toBe("Plain subject");
    expect(decodeEncodedWords("=?UTF-8?X?abc?= and =?broken")).toBe("=?UTF-8?X?abc?= and =?broken");
  });
});

describe("decodeBytes", () => {
  test("reads the named charset, and an unknown one as UTF-8", () => {
    expect(decodeBytes(Uint8Array.from([0x93, 0x80, 0x94]), "windows-1252")).toBe("“€”");
    expect(decodeBytes(Buffer.from("ünïcode"), "x-unknown-charset")).toBe("ünïcode");
    expect(decodeBytes(Buffer.from("plain"))).toBe("plain");
  });
});

describe("headerText", () => {
  test("unfolds, decodes and collapses whitespace and control characters", () => {
    expect(headerText("Re: =?utf-8?q?R=C3=A9union?=\r\n\tdemain\u0007 ")).toBe("Re: Réunion demain");
    expect(headerText(undefined)).toBe("");
  });
});
