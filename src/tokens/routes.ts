import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { MintedToken, MintTokenBody } from "../models/role.ts";
import { TenantParams } from "../models/tenant.ts";
import type { TokenMintingService } from "./service.ts";

export interface TokenRouteDeps {
  http: HttpKit;
  minting: TokenMintingService;
}

/** `POST /admin/jwt/{tenant_id}`: a role-scoped token for a tenant (admin only, audited). */
export const tokenRoutes = ({ http, minting }: TokenRouteDeps) =>
  new Elysia({ name: "routes.admin.tokens", prefix: "/admin" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .post(
      "/jwt/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const minted = await minting.mint(tenant, body, principal.sub);
        set.status = 201;
        return minted;
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...validatedBody(MintTokenBody),
        response: { 201: MintedToken, ...problems(400, 401, 403, 404, 413, 415, 422, 507) },
        detail: { tags: ["admin"], summary: "Mint a role-scoped token for a tenant" },
      },
    );
