import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { dayFilePath, slugOf } from "../../src/mail-ingest/layout.ts";

describe("layout", () => {
  test("slugs are lower case, accents dropped, other runs one dash", () => {
    expect(slugOf("INBOX")).toBe("inbox");
    expect(slugOf("Clients/ACME Corp.")).toBe("clients-acme-corp");
    expect(slugOf("Rechnungen/Büro")).toBe("rechnungen-buro");
    expect(slugOf("from:billing@example.com has:attachment")).toBe("from-billing-example-com-has-attachment");
  });

  test("letters of any script stay; nothing a file system acts on survives", () => {
    expect(slugOf("請求書")).toBe("請求書");
    expect(slugOf("../../etc/passwd")).toBe("etc-passwd");
    expect(slugOf("???")).toBe("mail");
  });

  test("long slugs are cut at 80 characters without a trailing dash", () => {
    const slug = slugOf(`${"a".repeat(79)} b`);
    expect(slug).toBe("a".repeat(79));
    expect(slugOf("x".repeat(200))).toHaveLength(80);
  });

  test("a day's file is <out>/<folder>/<YYYY-MM-DD>.md", () => {
    expect(dayFilePath("out", "clients", "2026-11-20")).toBe(join("out", "clients", "2026-11-20.md"));
  });
});
