/**
 * Domain errors: each carries its HTTP status and stable snake_case code (CONTRACT §1).
 * Domain code throws these; the errors plugin (src/http/errors.ts) turns them into problem+json.
 */
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number = 500;
  readonly code: string = "internal_error";
  readonly title: string = "Internal error";
  readonly headers: Record<string, string> = {};
  errors?: FieldError[];
  /** Members of its problem document beyond the standard ones (RFC 9457 §3.2), e.g. `checks`. */
  extensions?: Record<string, unknown>;
}

export class BadRequest extends AppError {
  override readonly status = 400;
  override readonly code = "bad_request";
  override readonly title = "Bad request";
}

export class Unauthorized extends AppError {
  override readonly status = 401;
  override readonly code = "unauthorized";
  override readonly title = "Unauthorized";
}

export class Forbidden extends AppError {
  override readonly status = 403;
  override readonly code: string = "forbidden";
  override readonly title: string = "Forbidden";
  /**
   * `permission`: what was missing, as recorded in the denial audit. `recorded`: that record's
   * commit; the 403 is sent only once it has resolved (CONTRACT §4).
   */
  constructor(
    message: string,
    readonly permission = "",
    readonly recorded?: Promise<void>,
  ) {
    super(message);
    // Observed by the errors plugin; this guard only stops an unobserved rejection crashing the process.
    recorded?.catch(() => undefined);
  }
}

/** A valid token of a suspended tenant: refused (and audited) until the tenant is resumed. */
export class TenantSuspended extends Forbidden {
  override readonly code = "tenant_suspended";
  override readonly title = "Tenant suspended";
}

export class NotFound extends AppError {
  override readonly status = 404;
  override readonly code = "not_found";
  override readonly title = "Not found";
}

/** An entry that was erased: only its tombstone is left (issue 11: erasure). */
export class Gone extends AppError {
  override readonly status = 410;
  override readonly code = "gone";
  override readonly title = "Gone";
}

/** A known path asked with a method it does not serve; `Allow` names those it does. */
export class MethodNotAllowed extends AppError {
  override readonly status = 405;
  override readonly code = "method_not_allowed";
  override readonly title = "Method not allowed";
  constructor(method: string, allowed: string[]) {
    super(`${method} is not served here; allowed: ${allowed.join(", ")}`);
    this.headers.allow = allowed.join(", ");
  }
}

/** The client does not accept any media type the route answers with (the MCP transport's Accept rule). */
export class NotAcceptable extends AppError {
  override readonly status = 406;
  override readonly code = "not_acceptable";
  override readonly title = "Not acceptable";
}

export class Conflict extends AppError {
  override readonly status = 409;
  override readonly code = "conflict";
  override readonly title = "Conflict";
}

export class PayloadTooLarge extends AppError {
  override readonly status = 413;
  override readonly code = "payload_too_large";
  override readonly title = "Payload too large";
}

/** A body of a media type the route does not read. */
export class UnsupportedMediaType extends AppError {
  override readonly status = 415;
  override readonly code = "unsupported_media_type";
  override readonly title = "Unsupported media type";
}

export class ValidationFailed extends AppError {
  override readonly status = 422;
  override readonly code = "validation_failed";
  override readonly title = "Validation failed";
  constructor(message: string, errors: FieldError[] = []) {
    super(message);
    this.errors = onePerPath(errors);
  }
}

/**
 * The first fault of each path: a schema checker reports a missing property twice ("required",
 * then "expected string"), and a client reading `errors` wants each failing field once.
 */
function onePerPath(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.path) && seen.add(e.path));
}

/** An `Idempotency-Key` already used for a different request body. */
export class IdempotencyMismatch extends AppError {
  override readonly status = 422;
  override readonly code = "idempotency_mismatch";
  override readonly title = "Idempotency key reused";
}

export class RateLimited extends AppError {
  override readonly status = 429;
  override readonly code = "rate_limited";
  override readonly title = "Rate limited";
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers["retry-after"] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class SecretMissing extends AppError {
  override readonly status = 503;
  override readonly code = "secret_missing";
  override readonly title = "Secret missing";
  /** Names the missing variables, never a value. */
  constructor(readonly variables: string[]) {
    super(`missing environment variable(s): ${variables.join(", ")}`);
  }
}

/** The service cannot take this request now (no file descriptor, storage busy); retry later. */
export class Unavailable extends AppError {
  override readonly status = 503;
  override readonly code: string = "unavailable";
  override readonly title: string = "Service unavailable";
  constructor(message: string, retryAfterSeconds = 1) {
    super(message);
    this.headers["retry-after"] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/**
 * The server is stopping (SIGTERM): it finishes the requests it has and takes no new one. Sent
 * with `Connection: close`, so the client's next attempt opens a connection to another instance.
 */
export class ShuttingDown extends Unavailable {
  override readonly code = "shutting_down";
  override readonly title = "Shutting down";
  constructor() {
    super("the server is shutting down; retry (another instance will answer)", 1);
    this.headers.connection = "close";
  }
}

/** `GET /readyz`: the runtime should not receive traffic now; `checks` says which check failed. */
export class NotReady extends Unavailable {
  override readonly code = "not_ready";
  override readonly title = "Not ready";
  constructor(failed: string[], checks: Record<string, unknown>) {
    super(failed.join("; "), 1);
    this.extensions = { checks };
  }
}

/**
 * A full disk or LMDB map, or a vault at its configured size ceiling (src/vault/storage-faults.ts):
 * nothing of the request was written. Answered 507 so a sender retries once space exists.
 */
export class InsufficientStorage extends AppError {
  override readonly status = 507;
  override readonly code = "insufficient_storage";
  override readonly title = "Insufficient storage";
}

/** An operating-system error saying the process or system ran out of file descriptors. */
export function isOutOfFiles(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EMFILE" || code === "ENFILE" || /too many open files/i.test(error.message);
}
