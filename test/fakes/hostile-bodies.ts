/** Bodies no source can parse: every webhook route and parser must refuse them cleanly (4xx, never 500). */
export function unparseableBodies(): Record<string, Uint8Array> {
  const enc = (s: string) => new TextEncoder().encode(s);
  const garbage = new Uint8Array(4096);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
  return {
    empty: new Uint8Array(0),
    whitespace: enc("   \n "),
    truncatedJson: enc('[{"eventId": 1, "subscriptionType": "contact.cre'),
    truncatedXml: enc('<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="x"><soapenv:Body><notif'),
    binary: garbage,
    invalidUtf8: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    jsonNull: enc("null"),
    jsonNumber: enc("42"),
    jsonString: enc('"hello"'),
    deeplyNestedJson: enc(`${"[".repeat(100_000)}${"]".repeat(100_000)}`),
    twoMiB: enc(`[${Array.from({ length: 2 * 1024 * 16 }, () => `"${"x".repeat(60)}"`).join(",")}]`),
  };
}
