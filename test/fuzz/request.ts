/** One generated request, and the pools of known values the generators draw from. */
import type { Credential } from "./tokens.ts";

export type RequestKind = "schema" | "hostile" | "webhook" | "unrouted" | "raw" | "positive" | "negative";

export interface FuzzRequest {
  kind: RequestKind;
  /** The operation aimed at (`METHOD /template`), or the kind for requests aimed at no operation. */
  operation: string;
  method: string;
  /** URL-ready path and query. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  credential: string;
  /** A webhook delivery to sign, at send time, as this source's platform would (it needs the URL). */
  signFor?: string;
  /** Raw mode: the request's bytes after the request line's path, sent over a bare socket. */
  raw?: Uint8Array;
  /**
   * A destructive admin call (delete, suspend, erase, import of a victim tenant): sent one at a
   * time, so that no two overlap on a victim (an import answers 503 + Retry-After to what overlaps it).
   */
  exclusive?: boolean;
}

export interface Pools {
  credentials: Credential[];
  validCredentials: Credential[];
  /** The operator's credentials, which admin routes take. */
  adminCredentials: Credential[];
  /** Tokens of the fixture tenants that hold memory permissions, which memory routes take. */
  tenantCredentials: Credential[];
  /** Tenants that exist (some suspended), the operator's id, an unknown one. */
  tenantIds: string[];
  /** Tenants destructive admin calls may remove, suspend, erase or import into. */
  victimIds: string[];
  /** Tenants with every webhook secret planted. */
  webhookTenants: string[];
  entryIds: string[];
  /** Entries of the fixture tenant whose owner token the contract checks use; its decision first. */
  ownEntryIds: string[];
  eventIds: string[];
  roleNames: string[];
  subscriptionIds: string[];
  sourceIds: string[];
  /** Sources the fuzz can sign deliveries for. */
  signedSources: string[];
  /** Receiver URLs on loopback (outbound subscriptions must never leave the machine). */
  loopbackUrls: string[];
}

const enc = new TextEncoder();
export const bytesOf = (text: string): Uint8Array => enc.encode(text);

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) three UTF-8-shaped bytes. */
export function encodeSegment(value: string): string {
  let out = "";
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const bytes = [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** A header value fetch will send: characters it refuses (NUL, CR, LF, above U+00FF) replaced. */
export function headerSafe(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the characters fetch refuses
  return value.replace(/[\u0000\n\r]|[^\u0000-\u00ff]/g, "?");
}
