/**
 * The CRM's OAuth 2.0 JWT bearer flow (SOURCES.md, `crm` Stream): an RS256 assertion
 * `{iss: client id, sub: username, aud, exp: now + 3 min}` posted to `{aud}/services/oauth2/token`.
 * There is no refresh token: the connector asks for a fresh assertion whenever the platform
 * answers 401. Errors name the status and the OAuth error code, never the key or a token.
 */
import { createPrivateKey, type KeyObject, randomUUID } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";
import { retryAfterOf } from "../../../src/connectors/retry-after.ts";
import { trimSlash } from "../../../src/connectors/url-policy.ts";
import type { Clock } from "../../../src/runtime/clock.ts";

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** The platform accepts assertions that expire within a few minutes. */
export const ASSERTION_LIFETIME_S = 180;

export interface CrmAccessToken {
  accessToken: string;
  /** The org's instance URL as the token endpoint reports it, when it does. */
  instanceUrl?: string;
  issuedAt: number;
}

export interface CrmAuthOptions {
  clientId: string;
  username: string;
  /** The assertion's audience and the token endpoint's base: CRM_LOGIN_URL or the instance URL. */
  audience: string;
  /** A PEM private key (PKCS#8 or PKCS#1). */
  privateKeyPem: string;
  clock: Clock;
  fetch?: typeof fetch;
}

export class CrmAuthError extends Error {
  constructor(
    message: string,
    /** HTTP status of the token endpoint's answer; 0 when none arrived. */
    readonly status: number,
    /** The endpoint's `Retry-After` on a 429 or 503: the connector waits that long before asking again. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "CrmAuthError";
  }
}

/** Decodes CRM_PRIVATE_KEY: base64 of a PEM (a bare PEM is accepted too). Throws on anything else. */
export function decodePrivateKey(raw: string): KeyObject {
  const trimmed = raw.trim();
  const pem = trimmed.startsWith("-----BEGIN") ? trimmed : Buffer.from(trimmed, "base64").toString("utf8");
  if (!pem.includes("-----BEGIN") || !/PRIVATE KEY-----/.test(pem)) {
    throw new CrmAuthError("CRM_PRIVATE_KEY is not a base64-encoded PEM private key", 0);
  }
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== "rsa") throw new Error("not RSA");
    return key;
  } catch {
    throw new CrmAuthError("CRM_PRIVATE_KEY is not a readable RSA private key", 0);
  }
}

export class CrmJwtBearerClient {
  private readonly fetchImpl: typeof fetch;
  private signingKey: Promise<CryptoKey> | undefined;
  private cached: CrmAccessToken | undefined;
  private pending: Promise<CrmAccessToken> | undefined;
  /** Assertions sent so far (a status figure). */
  assertions = 0;

  constructor(private readonly options: CrmAuthOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** The current access token, or a new one from a fresh assertion; concurrent callers share one. */
  async token(): Promise<CrmAccessToken> {
    if (this.cached) return this.cached;
    this.pending ??= this.exchange().finally(() => {
      this.pending = undefined;
    });
    this.cached = await this.pending;
    return this.cached;
  }

  /** Forgets the access token (after a 401): the next `token()` signs a fresh assertion. */
  invalidate(): void {
    this.cached = undefined;
  }

  /** A signed assertion; a random `jti` makes each one distinct even within the same second. */
  async assertion(): Promise<string> {
    const now = Math.floor(this.options.clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setIssuer(this.options.clientId)
      .setSubject(this.options.username)
      .setAudience(trimSlash(this.options.audience))
      .setIssuedAt(now)
      .setExpirationTime(now + ASSERTION_LIFETIME_S)
      .setJti(randomUUID())
      .sign(await this.key());
  }

  private key(): Promise<CryptoKey> {
    this.signingKey ??= (async () => {
      const pkcs8 = decodePrivateKey(this.options.privateKeyPem)
        .export({ type: "pkcs8", format: "pem" })
        .toString();
      return importPKCS8(pkcs8, "RS256");
    })();
    return this.signingKey;
  }

  private async exchange(): Promise<CrmAccessToken> {
    const body = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: await this.assertion() });
    this.assertions++;
    let response: Response;
    try {
      response = await this.fetchImpl(`${trimSlash(this.options.audience)}/services/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: body.toString(),
      });
    } catch {
      throw new CrmAuthError("token endpoint unreachable", 0);
    }
    const json = await readJson(response);
    if (!response.ok) {
      throw new CrmAuthError(
        `token endpoint answered ${response.status}${oauthCode(json)}`,
        response.status,
        retryAfterOf(response, this.options.clock.now()),
      );
    }
    const accessToken = json?.access_token;
    if (typeof accessToken !== "string" || !accessToken) {
      throw new CrmAuthError("token endpoint answer lacks access_token", 502);
    }
    const instanceUrl = typeof json?.instance_url === "string" ? json.instance_url : undefined;
    return { accessToken, instanceUrl, issuedAt: this.options.clock.now() };
  }
}

async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = await response.json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The OAuth error code is safe to show; its description may quote the request. */
function oauthCode(body: Record<string, unknown> | undefined): string {
  const code = body?.error;
  return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? ` (${code})` : "";
}
