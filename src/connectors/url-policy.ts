/**
 * Credentials and bearer tokens only travel over HTTPS. Plain HTTP is allowed for loopback hosts
 * so tests can run local fakes.
 */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

/** Why `raw` may not carry credentials, or undefined when it may. */
export function insecureUrlReason(name: string, raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${name} is not a valid URL`;
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return undefined;
  return `${name} must use https (plain http is allowed only for loopback hosts)`;
}

/** The URL without a trailing slash, for joining paths. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
