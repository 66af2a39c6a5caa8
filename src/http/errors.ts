import { Elysia, NotFoundError, ParseError, ValidationError } from "elysia";
import { requestInfo } from "../auth/caller.ts";
import { EmbeddingFailed } from "../embedding/http-embedder.ts";
import {
  AppError,
  BadRequest,
  type FieldError,
  Forbidden,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  Unavailable,
  ValidationFailed,
} from "../errors/domain-errors.ts";
import { PROBLEM_JSON } from "../models/problem.ts";
import { faultMessage } from "./allowed-values.ts";
import { categoryMiss } from "./category-miss.ts";
import { assignRequestId, requestIdOf } from "./request-id.ts";
import type { RouteTable } from "./route-table.ts";

/** RFC 9457 problem document (CONTRACT §1). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: FieldError[];
}

export function problemResponse(error: AppError, requestId: string): Response {
  const body: Problem = {
    type: `/problems/${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message || error.title,
    code: error.code,
    request_id: requestId,
    ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
  };
  // Extension members (RFC 9457 §3.2: the 503 `not_ready`'s `checks`) never replace a standard one.
  const document = error.extensions ? { ...error.extensions, ...body } : body;
  return new Response(JSON.stringify(document), {
    status: error.status,
    headers: { "content-type": PROBLEM_JSON, "x-request-id": requestId, ...error.headers },
  });
}

/**
 * Maps anything thrown to an AppError. Branches on classes, not on Elysia's `code` strings.
 * Unknown errors become a bare 500 whose detail reveals nothing (the log keeps the stack).
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ParseError) {
    const cause = (error as Error).cause;
    return cause instanceof AppError ? cause : new BadRequest("body is not parseable");
  }
  // A response that fails its own schema is our bug (a 500, logged), never the caller's 422.
  if (error instanceof ValidationError)
    return error.type === "response" ? new InternalError() : validationFailure(error);
  if (error instanceof NotFoundError) return new NotFound("no such route");
  // The upstream's words stay in the log (see logServerFault): they may name its host or echo input.
  if (error instanceof EmbeddingFailed)
    return new Unavailable("the embeddings service failed; retry later", EMBEDDING_RETRY_SECONDS);
  if (isBodyTooLarge(error)) return new PayloadTooLarge("body exceeds the size limit");
  return new InternalError();
}

class InternalError extends AppError {
  constructor() {
    super("internal error");
  }
}

function isBodyTooLarge(error: unknown): boolean {
  return error instanceof Error && /too large|maxRequestBodySize/i.test(error.message);
}

function validationFailure(error: ValidationError): ValidationFailed {
  const where = error.type === "body" ? "body" : error.type;
  const errors: FieldError[] = [];
  try {
    for (const e of error.all) {
      if ("path" in e)
        errors.push({
          path: e.path || "/",
          message: faultMessage(e.schema, e.value, e.summary ?? e.message),
        });
    }
  } catch {
    // `all` re-runs the checker; if that fails the message alone still says what is wrong.
  }
  const first = errors[0];
  const detail = first ? `${where} ${first.path}: ${first.message}` : `${where} failed validation`;
  return new ValidationFailed(detail, errors.slice(0, 20));
}

/**
 * A 403 is sent only after its denial record has committed (on the HTTP routes and as an MCP tool error). Should the record fail, the refusal
 * stands but is answered 503: a denial that is not audited is not reported as one.
 */
export async function durableDenial(error: AppError, log: (line: string) => void): Promise<AppError> {
  if (!(error instanceof Forbidden) || !error.recorded) return error;
  try {
    await error.recorded;
    return error;
  } catch (cause) {
    log(`denial could not be recorded: ${cause instanceof Error ? cause.message : String(cause)}`);
    return new Unavailable("the refusal could not be audited; retry later");
  }
}

/** A route miss: 405 with `Allow` when the path is served with other methods, else 404. */
function routeMiss(request: Request, routes: RouteTable | undefined): AppError {
  const allowed = routes?.allowed(requestInfo(request).path) ?? [];
  if (allowed.length > 0) return new MethodNotAllowed(request.method, allowed);
  return categoryMiss(requestInfo(request).path) ?? new NotFound("no such route");
}

const EMBEDDING_RETRY_SECONDS = 5;

/**
 * What the operator needs to see of a server-side failure: the stack of an unhandled error, the
 * upstream's own words for an embeddings failure. The caller's answer never carries either.
 */
export function logServerFault(
  log: (line: string) => void,
  requestId: string,
  appError: AppError,
  error: unknown,
): void {
  if (error instanceof EmbeddingFailed) log(`[${requestId}] ${error.message}`);
  else if (appError.status >= 500 && appError.code === "internal_error") {
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`[${requestId}] unhandled: ${stack}`);
  }
}

/** An error rendered for people rather than programs (the dashboard's sign-in page), or undefined. */
export type ErrorPage = (request: Request, error: AppError, requestId: string) => Response | undefined;

/**
 * The errors plugin: request ids on every response, problem+json for every error (or the page an
 * `ErrorPage` renders for its own routes). Use it first.
 */
export const errorsPlugin = (
  log: (line: string) => void = console.error,
  routes?: RouteTable,
  pages: ErrorPage[] = [],
) =>
  new Elysia({ name: "errors" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = assignRequestId(request);
      // A path the router would hand to a less specific route (`GET /memory/facts/batch` to
      // `/memory/facts/:sha8`) is refused here, as the 405 of its own resource.
      const allow = routes?.refusal(request.method, requestInfo(request).path);
      if (allow) throw new MethodNotAllowed(request.method, allow);
    })
    .onError({ as: "global" }, async ({ error, request }) => {
      const appError = await durableDenial(
        error instanceof NotFoundError ? routeMiss(request, routes) : toAppError(error),
        log,
      );
      logServerFault(log, requestIdOf(request), appError, error);
      const requestId = requestIdOf(request);
      for (const render of pages) {
        const rendered = render(request, appError, requestId);
        if (rendered) return rendered;
      }
      return problemResponse(appError, requestId);
    });
