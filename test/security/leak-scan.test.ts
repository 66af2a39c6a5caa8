import { describe, expect, test } from "bun:test";
import { formsOf, LeakScan } from "./leak-scan.ts";

const SECRET = "planted-secret-3f9a0c11d2";

describe("LeakScan", () => {
  test("finds a secret as is, in base64 and in hex, and names where", () => {
    const scan = new LeakScan();
    const bytes = Buffer.from(SECRET);
    scan.record("raw", `token=${SECRET};`);
    scan.record("escaped", JSON.stringify({ v: 'quote"d planted-secret\n' }));
    scan.record("base64", `Basic ${bytes.toString("base64")}`);
    scan.record("hex", `key ${bytes.toString("hex")}`);
    scan.record("clean", "nothing to see here, not even planted-secret-3f9a0c11");
    const { leaks } = scan.scan([{ name: "s", value: SECRET }]);
    expect(leaks.map((l) => [l.place, l.form])).toEqual([
      ["raw", "raw"],
      ["base64", "base64"],
      ["hex", "hex"],
    ]);
    expect(leaks[0]!.excerpt).toBe("token=«SECRET»;");
  });

  test("skips only the places a secret belongs in, for that secret only", () => {
    const scan = new LeakScan();
    scan.record("#1 POST /admin/tenants", `{"token":"${SECRET}","other":"second-secret-value-0001"}`);
    const { leaks, checks } = scan.scan([
      { name: "issued here", value: SECRET, belongsIn: ["#1 POST /admin/tenants"] },
      { name: "not issued here", value: "second-secret-value-0001" },
    ]);
    expect(leaks.map((l) => l.secret)).toEqual(["not issued here"]);
    expect(checks).toBe(formsOf("second-secret-value-0001").length);
  });

  test("a whsec_ secret is also searched as its key bytes; a base64 PEM as its key body", () => {
    const key = Buffer.from("raw key bytes of a subscription");
    const whsec = `whsec_${key.toString("base64")}`;
    expect(formsOf(whsec).map((f) => f.text)).toContain(key.toString("hex"));
    const pem = `-----BEGIN PRIVATE KEY-----\n${"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(4)}\n-----END PRIVATE KEY-----\n`;
    const forms = formsOf(Buffer.from(pem).toString("base64")).map((f) => f.text);
    expect(forms).toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(2));
  });

  test("forms shorter than 12 characters are not searched (they would match by chance)", () => {
    expect(formsOf("short")).toEqual([]);
  });
});

test("a secret with characters JSON or a URL escapes is found in its escaped forms too", () => {
  const odd = 'we"ird/secret value+1';
  const scan = new LeakScan();
  scan.record("json", JSON.stringify({ detail: odd }));
  scan.record("url", `https://x.example/?q=${encodeURIComponent(odd)}`);
  const { leaks } = scan.scan([{ name: "odd", value: odd }]);
  expect(leaks.map((l) => [l.place, l.form])).toEqual([
    ["json", "json-escaped"],
    ["url", "url-encoded"],
  ]);
});
