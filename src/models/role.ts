import { type Static, Type } from "@sinclair/typebox";
import { Chars } from "./chars.ts";
import { IsoTime, LiteralUnion, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";
import { ScopeId } from "./scope.ts";

/** A restricted token's access to unscoped entries (src/auth/subject-scope.ts reads the claim). */
export const UNSCOPED_ACCESS = ["read", "none"] as const;

export const ROLE_NAME_RE = /^[a-z][a-z0-9_-]{0,63}$/;
export const TENANT_ADMIN = "tenant_admin";
/** The longest lifetime a token may have: minting refuses more, and so does verification. */
export const MAX_TOKEN_TTL_SECONDS = 366 * 86400;

/** `*`, `memory:*`, `tenant:read`, `memory:<action>` and `memory:<action>:<plural category>`. */
export const PERMISSION_RE =
  /^(\*|tenant:read|memory:\*|memory:(read|write|search|override|merge)(:(decisions|exceptions|facts|workflows|relationships|outcomes))?)$/;

export const Role = named(
  "Role",
  StrictObject({
    name: Type.String(),
    permissions: Type.Array(Type.String()),
    description: Type.String(),
    builtin: Type.Boolean(),
  }),
);
export type Role = Static<typeof Role>;

export const RoleList = named("RoleList", StrictObject({ roles: Type.Array(Role) }));
export const RoleDeleted = named("RoleDeleted", StrictObject({ deleted: Type.String() }));

export const MintedToken = named(
  "MintedToken",
  StrictObject({
    token: Type.String(),
    tenant_id: Type.String(),
    sub: Type.String(),
    roles: Type.Array(Type.String()),
    ttl_seconds: Type.Integer(),
    expires_at: IsoTime,
    subject: Type.Optional(Type.String({ description: "The subject the token is restricted to" })),
    unscoped: Type.Optional(LiteralUnion(UNSCOPED_ACCESS)),
  }),
);

export const RoleBody = named(
  "RoleRequest",
  StrictObject({
    name: Type.String({ pattern: ROLE_NAME_RE.source }),
    permissions: Type.Array(Type.String({ pattern: PERMISSION_RE.source }), { maxItems: 64 }),
    description: Type.Optional(Chars(0, 1024)),
  }),
);
export type RoleBody = Static<typeof RoleBody>;

export const MintTokenBody = named(
  "MintTokenRequest",
  StrictObject({
    roles: Type.Array(Type.String({ pattern: ROLE_NAME_RE.source }), {
      minItems: 1,
      maxItems: 32,
      description: "Roles of the tenant's library (a role it does not hold is a 422)",
    }),
    sub: Type.Optional(Chars(1, 128)),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_TTL_SECONDS })),
    subject: Type.Optional(
      ScopeId(
        "Restricts the token to this subject's entries (docs/auth.md): it reads, lists, searches and streams only them and the tenant's unscoped ones, and writes only them",
      ),
    ),
    unscoped: Type.Optional(
      LiteralUnion(UNSCOPED_ACCESS, {
        description:
          "Only with `subject` (422 otherwise): `read` (default) lets the token read the tenant's unscoped entries (no subject), `none` hides them",
      }),
    ),
  }),
);
export type MintTokenBody = Static<typeof MintTokenBody>;

export const BUILTIN_TENANT_ADMIN: Role = Object.freeze({
  name: TENANT_ADMIN,
  permissions: ["*"],
  description: "Built in: every permission within its tenant",
  builtin: true,
}) as Role;
