/**
 * The tenant's access to its mailbox: the credentials and topic in its secrets (read on each use,
 * so a reload takes effect), and one API client per set of credentials, whose access token is
 * cached until the credentials change.
 */
import { boundedFetch, errorMessage } from "../../../src/connectors/transport.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { Secrets } from "../../../src/secrets/secrets.ts";
import { MailApiClient, MailApiError } from "../../../src/sources/mail/api.ts";
import type { Telemetry } from "../../../src/telemetry/telemetry.ts";
import { tracedFetch } from "../../../src/telemetry/traced-fetch.ts";

const REQUEST_TIMEOUT_MS = 30_000;

export interface Credentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  email: string;
}

export interface MailAccessDeps {
  clock: Clock;
  secrets: Secrets;
  /** Process-wide MAIL_OAUTH_TOKEN_URL and MAIL_API_BASE_URL. */
  tokenUrl: string;
  apiBaseUrl: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Times each call to the mail API (src/telemetry/traced-fetch.ts). */
  telemetry?: Telemetry;
}

export class MailAccess {
  private client: { key: string; api: MailApiClient } | undefined;

  constructor(
    private readonly tenantId: string,
    private readonly deps: MailAccessDeps,
  ) {}

  credentials(): Credentials | undefined {
    const get = (base: string) => this.deps.secrets.get(base, this.tenantId);
    const clientId = get("MAIL_CLIENT_ID");
    const clientSecret = get("MAIL_CLIENT_SECRET");
    const refreshToken = get("MAIL_REFRESH_TOKEN");
    const email = get("MAIL_WATCH_EMAIL");
    if (!clientId || !clientSecret || !refreshToken || !email) return undefined;
    return { clientId, clientSecret, refreshToken, email: email.trim() };
  }

  /** The Pub/Sub topic the watch publishes to. */
  topic(): string | undefined {
    return this.deps.secrets.get("MAIL_PUBSUB_TOPIC", this.tenantId);
  }

  api(creds: Credentials): MailApiClient {
    const key = `${creds.clientId}\u0000${creds.clientSecret}\u0000${creds.refreshToken}`;
    if (this.client?.key !== key) {
      const api = new MailApiClient({
        tokenUrl: this.deps.tokenUrl,
        apiBaseUrl: this.deps.apiBaseUrl,
        clientId: creds.clientId,
        clientSecret: creds.clientSecret,
        refreshToken: creds.refreshToken,
        clock: this.deps.clock,
        fetch: boundedFetch(
          tracedFetch(this.deps.fetch ?? fetch, this.deps.telemetry, "mail-watch"),
          this.deps.signal,
          REQUEST_TIMEOUT_MS,
        ),
      });
      this.client = { key, api };
    }
    return this.client.api;
  }
}

export function describeError(error: unknown): string {
  if (error instanceof MailApiError) return `${error.status} (${error.message})`;
  return errorMessage(error).slice(0, 300);
}

/** A failure that passes by itself: the API was busy (429), failing (5xx) or unreachable. */
export function isPassing(error: unknown): error is MailApiError {
  if (!(error instanceof MailApiError)) return false;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}
