import { Unauthorized } from "../errors.ts";
import { isoOf } from "../models/common.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { API_REALM, challenged } from "./bearer-challenge.ts";
import type { Principal } from "./caller.ts";
import type { Claims, TokenService } from "./tokens.ts";

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
