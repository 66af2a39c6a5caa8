/**
 * The hostile corpus of the fuzz: path segments, query values, JSON values (as JSON text, so that
 * what JSON.stringify cannot write, such as 1e309, lone surrogates and duplicate keys, can be sent),
 * whole bodies, content types and headers. Built once per process: the big ones are shared buffers.
 */
import { unparseableBodies } from "../fakes/hostile-bodies.ts";

const enc = (s: string) => new TextEncoder().encode(s);

export const DEEP = 10_000;
const deepArray = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
const deepObject = `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`;
const MiB = 1024 * 1024;

/**
 * Path segments, URL-ready as they are (their percent-encoding is the point): traversal, encoded
 * traversal (single and double), NUL, invalid UTF-8, lone surrogates (as CESU-8 bytes), overlong
 * encodings, prototype names, numeric edge cases, injection-shaped text and a 10,000-character id.
 */
export const HOSTILE_SEGMENTS: readonly string[] = [
  "..",
  ".",
  "..%2f..%2fetc%2fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%252e%252e%252f",
  "..%5c..%5cwindows",
  "%2e%2e",
  "%00",
  "a%00b",
  "%ED%A0%80",
  "%ED%B0%80x",
  "%C0%AE%C0%AE",
  "%FF%FE",
  "%E2%80%AE",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "0",
  "-1",
  "1e309",
  "NaN",
  "Infinity",
  "9007199254740993",
  "00000000000000000000000000",
  "ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
  "01jdb2x6j3kq5w8z3m4n7p9r2s",
  "0000000g",
  "DEADBEEF",
  "%20",
  "%09",
  "%0d%0aSet-Cookie:%20x=1",
  "*",
  "%2A",
  "'%20OR%201=1%20--",
  "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
  "$%7Bjndi:ldap:%2F%2F127.0.0.1%2Fa%7D",
  "x".repeat(10_000),
  "%41".repeat(2_000),
];

/** Query values (raw, URL-ready): numeric edges, NUL, invalid UTF-8, arrays, huge ones. */
export const HOSTILE_QUERY_VALUES: readonly string[] = [
  "",
  "0",
  "-1",
  "1.5",
  "1e309",
  "-0",
  "NaN",
  "Infinity",
  "0x10",
  "%201",
  "9007199254740993",
  "2147483648",
  "99999999999999999999999999",
  "%00",
  "%ED%A0%80",
  "%FF",
  "true",
  "null",
  "undefined",
  "[]",
  "%5B%5D",
  "2026-02-30T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "0000-01-01T00:00:00Z",
  "%2B275760-09-13T00:00:00.000Z",
  "1970-01-01T00:00:00%2B99:99",
  "../../etc/passwd",
  "decision,fact,__proto__",
  "y".repeat(8_000),
];

/** Query strings appended whole: duplicate keys, prototype keys, bracket syntax, thousands of keys. */
export const HOSTILE_QUERY_TAILS: readonly string[] = [
  "limit=1&limit=2",
  "__proto__%5Badmin%5D=true",
  "constructor%5Bprototype%5D%5Bpolluted%5D=1",
  "limit%5B%5D=1",
  "cursor=%00%00",
  "&&&==&",
  Array.from({ length: 2_000 }, (_, i) => `k${i}=v`).join("&"),
];

/** JSON values as text: what a field may be given in place of a well-typed value. */
export const HOSTILE_JSON_VALUES: readonly string[] = [
  "null",
  "true",
  "0",
  "-0",
  "-1",
  "1.5",
  "1e309",
  "-1e309",
  "1e-400",
  "5e-324",
  "1.7976931348623157e308",
  "9007199254740993",
  "123456789012345678901234567890",
  '""',
  '" "',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\u202e"',
  '"../../etc/passwd"',
  '"%00"',
  '"2026-02-30T00:00:00Z"',
  '"2026-01-01T24:00:00Z"',
  '"9999-12-31T23:59:59.999Z"',
  '"0000-01-01T00:00:00Z"',
  '"+275760-09-13T00:00:00.000Z"',
  '"1970-01-01T00:00:00+99:99"',
  '"__proto__"',
  "[]",
  "{}",
  '["a","a"]',
  `[${"1,".repeat(5_000)}1]`,
  `"${"x".repeat(40_000)}"`,
  `"${"é".repeat(20_000)}"`,
  '{"__proto__":{"admin":true,"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  deepArray,
  deepObject,
];

/** A one-mebibyte string value (just under and over limits, depending on the route). */
export const HUGE_JSON_STRING = `"${"h".repeat(MiB)}"`;

export interface HostileBody {
  name: string;
  bytes: Uint8Array;
}

/** Whole bodies: the shared unparseable corpus plus nesting, NUL, surrogates, duplicates, prototypes, size. */
export function hostileBodies(): HostileBody[] {
  const own: Record<string, Uint8Array> = {
    deepArray10k: enc(deepArray),
    deepObject10k: enc(deepObject),
    deepInField: enc(`{"content":"x","data":${deepObject}}`),
    nulInString: enc('{"content":"a\\u0000b","tags":["\\u0000"]}'),
    rawNulBytes: enc('{"content":"a\u0000b"}'),
    loneSurrogateEscape: enc('{"content":"\\ud800","query":"\\udc00x"}'),
    loneSurrogateBytes: new Uint8Array([...enc('{"content":"'), 0xed, 0xa0, 0x80, ...enc('"}')]),
    duplicateKeys: enc('{"content":"first","content":"second","tags":["a"],"tags":"b"}'),
    duplicateTenant: enc('{"content":"x","tenant_id":"00000000000000000000000000","tenant_id":null}'),
    protoKeys: enc('{"__proto__":{"admin":true},"content":"x","constructor":{"prototype":{"polluted":1}}}'),
    protoInData: enc('{"content":"x","data":{"__proto__":{"polluted":true},"constructor":{"name":"y"}}}'),
    numericEdges: enc(
      '{"content":"n","amount":1e309,"limit":-0,"embedding":[1e-400,5e-324,1.7976931348623157e308],"ttl_seconds":9007199254740993}',
    ),
    hugeString: enc(`{"content":${HUGE_JSON_STRING}}`),
    overLimit: enc(`{"content":"${"o".repeat(3 * MiB)}"}`),
    bom: new Uint8Array([0xef, 0xbb, 0xbf, ...enc('{"content":"bom"}')]),
    utf16: new Uint8Array([0xff, 0xfe, ...Array.from(enc('{"content":"x"}'), (b) => [b, 0]).flat()]),
    jsonArray: enc("[]"),
    trailingGarbage: enc('{"content":"x"} {"content":"y"}'),
    comments: enc('{/* c */"content":"x"}'),
    singleQuotes: enc("{'content':'x'}"),
    ndjsonLines: enc('{"category":"fact"}\n{"__proto__":1}\nnot json\n\n'),
    formEncoded: enc("token=abc&token=def&__proto__%5Badmin%5D=1"),
    xmlBomb: enc(
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><l>&c;</l>',
    ),
    xxe: enc('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'),
    jsonRpcBatch: enc(
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":{"__proto__":1},"method":"tools/call","params":{"name":"__proto__","arguments":null}}]',
    ),
  };
  return [...Object.entries(unparseableBodies()), ...Object.entries(own)].map(([name, bytes]) => ({
    name,
    bytes,
  }));
}

/** Content types a route does not read, or malformed ones, sent in place of the declared one. */
export const WRONG_CONTENT_TYPES: readonly string[] = [
  "text/plain",
  "application/xml",
  "text/xml",
  "multipart/form-data; boundary=xyz",
  "application/x-www-form-urlencoded",
  "application/x-ndjson",
  "application/json; charset=utf-16",
  "application/json; charset=\u00ff",
  "application/json, text/html",
  "application/problem+json",
  "application/octet-stream",
  "image/png",
  ";;;",
  "application/",
  "json",
  `application/json; x=${"p".repeat(8_000)}`,
];

/** Extra headers: oversized (under and over the server's limit), many, lying, injection-shaped. */
export function hostileHeaders(): Array<Record<string, string>> {
  const many: Record<string, string> = {};
  for (let i = 0; i < 150; i++) many[`x-fuzz-${i}`] = String(i);
  return [
    { "x-request-id": "r".repeat(10_000) },
    { "x-request-id": "../../etc/passwd" },
    { "x-request-id": "\u00ff\u00fe" },
    { "x-padding": "p".repeat(12_000) },
    { "x-padding": "q".repeat(80_000) },
    many,
    { "content-encoding": "gzip" },
    { "content-encoding": "br, deflate, identity, x-unknown" },
    { accept: "application/x-nothing" },
    { accept: "*/*;q=NaN, text/event-stream;q=1e309" },
    { "accept-language": "en;q=0.\u00e9" },
    { "idempotency-key": "k".repeat(4_000) },
    { "last-event-id": "%00../../../" },
    { "x-forwarded-for": "127.0.0.1, ::1, 999.999.999.999" },
    { host: "evil.example" },
    { "if-none-match": "*".repeat(2_000) },
    { range: "bytes=-1,0-0,99999999999999999999-" },
    { cookie: `memory_admin=${"c".repeat(5_000)}` },
    { cookie: "memory_admin=; memory_admin=x; __proto__=1" },
  ];
}
