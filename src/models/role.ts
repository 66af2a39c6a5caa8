import { type Static, Type } from "@sinclair/typebox";
import { StrictObject } from "./common.ts";

export const ROLE_NAME_RE = /^[a-z][a-z0-9_-]{0,63}$/;
export const TENANT_ADMIN = "tenant_admin";

/** `*`, `memory:*`, `tenant:read`, `memory:<action>` and `memory:<action>:<plural category>`. */
export const PERMISSION_RE =
  /^(\*|tenant:read|memory:\*|memory:(read|write|search)(:(decisions|exceptions|facts|workflows|relationships|outcomes))?)$/;

export interface Role {
  name: string;
  permissions: string[];
  description: string;
  builtin: boolean;
}

export const RoleBody = StrictObject({
  name: Type.String({ pattern: ROLE_NAME_RE.source }),
  permissions: Type.Array(Type.String({ pattern: PERMISSION_RE.source }), { maxItems: 64 }),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type RoleBody = Static<typeof RoleBody>;

export const MintTokenBody = StrictObject({
  roles: Type.Array(Type.String({ pattern: ROLE_NAME_RE.source }), { minItems: 1, maxItems: 32 }),
  sub: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 * 86400 })),
});
export type MintTokenBody = Static<typeof MintTokenBody>;

export const BUILTIN_TENANT_ADMIN: Role = Object.freeze({
  name: TENANT_ADMIN,
  permissions: ["*"],
  description: "Built in: every permission within its tenant",
  builtin: true,
}) as Role;
