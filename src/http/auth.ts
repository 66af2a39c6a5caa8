import type { TSchema } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import { Forbidden, NotFound, TenantSuspended, Unauthorized, UnsupportedMediaType } from "../errors.ts";
import { isoOf, ULID_RE } from "../models/common.ts";
import type { Denial } from "../models/denial.ts";
import { parseAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { API_REALM, challenged } from "./bearer-challenge.ts";
import { RAW_BODY, readJsonBody } from "./body.ts";
import { isNdjson } from "./ndjson.ts";
import { anyGrants } from "./permissions.ts";
import { type RateLimiter, rateClassOf } from "./rate-limit.ts";
import type { Claims, TokenService } from "./tokens.ts";
import { checkBody } from "./validate-body.ts";

/** Who is calling: the verified claims of the bearer token. */
export interface Principal {
  sub: string;
  tenantId: string;
  roles: string[];
  admin: boolean;
  expiresAt: string;
}

/** The part of a request a denial record needs. */
export interface RequestInfo {
  method: string;
  path: string;
}

export function requestInfo(request: Request): RequestInfo {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  return { method: request.method, path: start < 0 ? "/" : url.slice(start, end < 0 ? undefined : end) };
}

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Turns a request's bearer token into a Principal, or throws Unauthorized. Every refusal carries
 * its `WWW-Authenticate: Bearer` challenge (RFC 6750), whichever way the token came.
 */
export class Authenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly store: SystemStore,
  ) {}

  async authenticate(request: Request, cookieToken?: string): Promise<Principal> {
    const raw = bearerToken(request) ?? cookieToken;
    if (!raw) throw challenged(new Unauthorized("missing bearer token"), API_REALM, false);
    return this.authenticateToken(raw);
  }

  /** A token handed over some other way (the dashboard's sign-in form). */
  async authenticateToken(raw: string): Promise<Principal> {
    try {
      const claims = await this.tokens.verify(raw);
      if (!claims.admin && !this.store.getTenant(claims.tenant_id)) {
        throw new Unauthorized("the token's tenant does not exist");
      }
      return principalOf(claims);
    } catch (error) {
      if (error instanceof Unauthorized) challenged(error, API_REALM, true);
      throw error;
    }
  }
}

function principalOf(claims: Claims): Principal {
  return {
    sub: claims.sub,
    tenantId: claims.tenant_id,
    roles: claims.roles,
    admin: claims.admin === true,
    expiresAt: isoOf(claims.exp * 1000),
  };
}

/** Records a denial; resolves once it is durable. */
export type DenialSink = (denial: Denial) => Promise<void>;

/**
 * Authorisation: permissions are resolved against the live role library on every request, so a
 * deleted role stops granting at once. Every refusal is recorded as a denial before it is thrown.
 */
export class Guard {
  constructor(
    private readonly store: SystemStore,
    private readonly clock: Clock,
    private readonly recordDenial: DenialSink,
  ) {}

  permissionsOf(principal: Principal): string[] {
    if (principal.admin) return ["*"];
    const held: string[] = [];
    for (const name of principal.roles) {
      const role = this.store.getRole(principal.tenantId, name);
      if (role) held.push(...role.permissions);
    }
    return held;
  }

  require(principal: Principal, permission: string, req: RequestInfo): void {
    if (!anyGrants(this.permissionsOf(principal), permission)) {
      throw this.deny(principal, req, permission, `no role grants ${permission}`);
    }
  }

  requireAdmin(principal: Principal, req: RequestInfo): void {
    if (!principal.admin) throw this.deny(principal, req, "admin", "admin route needs the admin claim");
  }

  /** A tenant token may act only on its own tenant; the operator on any. */
  requireTenantAccess(
    principal: Principal,
    tenantId: string,
    req: RequestInfo,
    permission = "tenant:read",
  ): void {
    if (!principal.admin && principal.tenantId !== tenantId) {
      throw this.deny(principal, req, permission, "token belongs to another tenant");
    }
  }

  /** A suspended tenant's tokens are refused, each refusal audited like any other denial. */
  requireActiveTenant(principal: Principal, req: RequestInfo): void {
    if (principal.admin || this.store.getTenant(principal.tenantId)?.status !== "suspended") return;
    const denied = this.deny(principal, req, "tenant:active", "the tenant is suspended");
    throw new TenantSuspended(denied.message, denied.permission, denied.recorded);
  }

  /** The refusal to throw; it carries the denial's commit, which the errors plugin awaits before the 403. */
  deny(principal: Principal, req: RequestInfo, permission: string, reason: string): Forbidden {
    const recorded = this.recordDenial({
      at: isoOf(this.clock.now()),
      tenant_id: principal.tenantId,
      sub: principal.sub,
      roles: principal.roles,
      method: req.method,
      path: req.path,
      permission,
      reason,
    });
    return new Forbidden(reason, permission, recorded);
  }
}

/** Path tenant ids are checked before anything touches the disk: malformed or unknown → 404. */
export function existingTenantId(store: SystemStore, tenantId: string): string {
  if (!ULID_RE.test(tenantId) || !store.getTenant(tenantId))
    throw new NotFound(`no tenant ${safeEcho(tenantId)}`);
  return tenantId;
}

/** Echoes caller input into messages only when it is short and plain. */
export function safeEcho(value: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : "(malformed)";
}

/** The cookie the dashboard's token form sets: the operator's token, accepted on GET requests only. */
export const ADMIN_COOKIE = "memory_admin";

/** Who calls, and the request facts a denial records (a type, not an interface: Elysia's `resolve` needs one). */
export type Caller = {
  principal: Principal;
  req: RequestInfo;
};

/** `caller`: any valid token (tenant or operator); `admin`: the operator's token only. */
export type AuthLevel = "caller" | "admin";

/** A level, or a level with the body limit of a route that takes more than the default (a batch). */
export type AuthOption = AuthLevel | { level: AuthLevel; bodyLimit: number };

/**
 * The one auth plugin: a route declares `{ auth: "caller" | "admin" }` (first among its options),
 * and the caller is resolved once per request, before any parameter, query or body is validated
 * (an anonymous caller gets 401, never a schema hint). Handlers receive `principal` and `req`.
 * A suspended tenant's token stops here (403 `tenant_suspended`); so does a tenant token on an
 * admin route (403, audited). The admin cookie counts on GET requests only, so a page cannot be
 * made to post with the operator's authority. The caller's rate limit is checked here too (429
 * `rate_limited`, declared on every route that uses the plugin), before the body is read.
 */
export function authPlugin(auth: Authenticator, guard: Guard, bodyLimit: number, limiter: RateLimiter) {
  const callers = new WeakMap<Request, Promise<Caller>>();
  const callerOf = (request: Request): Promise<Caller> => {
    let pending = callers.get(request);
    if (!pending) {
      pending = (async () => {
        const principal = await auth.authenticate(request, cookieToken(request));
        const req = requestInfo(request);
        // Before the suspension check and every other refusal: a flood of refused requests must
        // not become a flood of audit-log writes.
        const refused = limiter.admit(principal.tenantId, rateClassOf(req.method, req.path));
        if (refused) await refused;
        guard.requireActiveTenant(principal, req);
        return { principal, req };
      })();
      callers.set(request, pending);
    }
    return pending;
  };
  // The caller admitted to a route of `level`: on an admin route a tenant token is refused here,
  // once per request (one denial), whether the body's reader or the transform asks first.
  const admitted = new WeakMap<Request, Promise<Caller>>();
  const admittedCaller = (request: Request, level: AuthLevel): Promise<Caller> => {
    let pending = admitted.get(request);
    if (!pending) {
      pending = callerOf(request).then((caller) => {
        if (level === "admin") guard.requireAdmin(caller.principal, caller.req);
        return caller;
      });
      admitted.set(request, pending);
    }
    return pending;
  };
  const readAfterAuth =
    (level: AuthLevel, limit: number) =>
    async ({ request }: { request: Request }) => {
      // Refused before the body is read: a tenant's probe of an admin route is a 403 on record,
      // never a 400 or 413 about bytes it had no right to send.
      await admittedCaller(request, level);
      // NDJSON (an import) is left unread for its route to stream; a JSON route refuses it (415).
      if (isNdjson(request)) return RAW_BODY;
      return readJsonBody(request, limit);
    };
  return new Elysia({ name: "auth" }).macro({
    auth: (option: AuthOption) => ({
      // The caller is known before the body is read: an anonymous caller's bytes are never parsed.
      // The reader always answers (an empty body is null); "json" tells the OpenAPI document.
      parse: parseAs(
        "json",
        readAfterAuth(levelOf(option), typeof option === "string" ? bodyLimit : option.bodyLimit),
      ),
      async transform({ request }) {
        await admittedCaller(request, levelOf(option));
      },
      resolve: ({ request }) => callerOf(request),
      // Merged into the route's own responses, so the OpenAPI document lists them on each: the 429,
      // and the 400 and 413 of the body this plugin reads for every route, one that takes none too.
      response: problems(400, 413, 429),
    }),
    // Macro hooks run in the order a route names them: after `auth`, so a refused caller never
    // learns the schema; before Elysia's own validation, which a hostile body could crash.
    checkBody: (check: TypeCheck<TSchema>) => ({
      transform({ body }) {
        if (body === RAW_BODY) throw new UnsupportedMediaType("this route reads application/json");
        checkBody(check, body);
      },
    }),
  });
}

function levelOf(option: AuthOption): AuthLevel {
  return typeof option === "string" ? option : option.level;
}

function cookieToken(request: Request): string | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === ADMIN_COOKIE) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}
