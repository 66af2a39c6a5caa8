import { Unauthorized } from "../errors/domain-errors.ts";
import { isoOf } from "../models/common.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { API_REALM, challenged } from "./bearer-challenge.ts";
import type { Principal } from "./caller.ts";
import { reachOfClaims } from "./subject-scope.ts";
import type { Claims, TokenService } from "./tokens.ts";

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1];
}

const BEARER = "Bearer ";

/**
 * Turns a request's bearer token into a Principal, or throws Unauthorized. Every refusal carries
 * its `WWW-Authenticate: Bearer` challenge (RFC 6750), whichever way the token came.
 */
export class Authenticator {
  /** One Principal per cached claims object: it lives as long as the token cache holds them. */
  private readonly principals = new WeakMap<Claims, Principal>();

  constructor(
    private readonly tokens: TokenService,
    private readonly store: SystemStore,
  ) {}

  /**
   * The request path's common case, without an await: the Principal of a `Bearer` token verified
   * before and still within its `exp`, whose tenant still exists. Anything else is undefined, and
   * `authenticate` decides (every refusal is its). The cache holds canonical compact tokens only,
   * which `bearerToken`'s pattern accepts whole: finding `Bearer <token>` there is the same as
   * parsing the header first.
   */
  known(request: Request): Principal | undefined {
    const header = request.headers.get("authorization");
    if (header === null || !header.startsWith(BEARER)) return undefined;
    const claims = this.tokens.verified(header.slice(BEARER.length));
    if (claims === undefined || !this.tenantExists(claims)) return undefined;
    return this.principalOf(claims);
  }

  async authenticate(request: Request, cookieToken?: string): Promise<Principal> {
    const raw = bearerToken(request) ?? cookieToken;
    if (!raw) throw challenged(new Unauthorized("missing bearer token"), API_REALM, false);
    return this.authenticateToken(raw);
  }

  /** A token handed over some other way (the dashboard's sign-in form). */
  async authenticateToken(raw: string): Promise<Principal> {
    try {
      const claims = await this.tokens.verify(raw);
      if (!this.tenantExists(claims)) throw new Unauthorized("the token's tenant does not exist");
      return this.principalOf(claims);
    } catch (error) {
      if (error instanceof Unauthorized) challenged(error, API_REALM, true);
      throw error;
    }
  }

  /** Checked on every request, cached token or not: a deleted tenant's tokens stop at once. */
  private tenantExists(claims: Claims): boolean {
    return claims.admin === true || this.store.getTenant(claims.tenant_id) !== undefined;
  }

  private principalOf(claims: Claims): Principal {
    let principal = this.principals.get(claims);
    if (principal === undefined) {
      principal = {
        sub: claims.sub,
        tenantId: claims.tenant_id,
        roles: claims.roles,
        admin: claims.admin === true,
        expiresAt: isoOf(claims.exp * 1000),
      };
      const reach = reachOfClaims(claims);
      if (reach) principal.reach = reach;
      this.principals.set(claims, principal);
    }
    return principal;
  }
}
