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
  override readonly code = "forbidden";
  override readonly title = "Forbidden";
  /** The permission that was missing, recorded in the denial audit. */
  constructor(
    message: string,
    readonly permission = "",
  ) {
    super(message);
  }
}

export class NotFound extends AppError {
  override readonly status = 404;
  override readonly code = "not_found";
  override readonly title = "Not found";
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

export class ValidationFailed extends AppError {
  override readonly status = 422;
  override readonly code = "validation_failed";
  override readonly title = "Validation failed";
  constructor(message: string, errors: FieldError[] = []) {
    super(message);
    this.errors = errors;
  }
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
