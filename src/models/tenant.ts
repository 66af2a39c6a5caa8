import { type Static, Type } from "@sinclair/typebox";
import { TextMatching } from "./checked-kind.ts";
import { IsoTime, LiteralUnion, StrictObject } from "./common.ts";
import { UNSCOPED_ACCESS } from "./role.ts";
import { named } from "./schema-name.ts";

export const TENANT_STATUSES = ["active", "suspended"] as const;
export const TenantStatus = LiteralUnion(TENANT_STATUSES);
export type TenantStatus = Static<typeof TenantStatus>;

export const Tenant = StrictObject({
  tenant_id: Type.String(),
  name: Type.String(),
  status: TenantStatus,
  created_at: IsoTime,
});
export type Tenant = Static<typeof Tenant>;

/** The `{tenant_id}` of a path. */
export const TenantParams = Type.Object({ tenant_id: Type.String({ description: "The tenant's ULID" }) });

/** Characters a tenant name may not hold: control, format, surrogate, line and paragraph separators. */
const UNPRINTABLE = "\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}";

/**
 * `name`: 1–128 characters after trimming, none of them unprintable (CONTRACT §4; the system actor
 * checks the same rule when it stores the name, actors/system.ts). Blanks around it are trimmed.
 */
export const CreateTenantBody = named(
  "CreateTenantRequest",
  StrictObject({
    name: TextMatching({
      pattern: `^\\s*[^\\s${UNPRINTABLE}](?:[^${UNPRINTABLE}]{0,126}[^\\s${UNPRINTABLE}])?\\s*$`,
      maxLength: 512,
      description:
        "1–128 characters after trimming blanks at either end; no control, format, line or paragraph separator characters (and no lone surrogate). A name used already (case-insensitive) is a 409",
      rule: "1–128 characters after trimming, none of them control, format or separator characters",
    }),
  }),
);
export type CreateTenantBody = Static<typeof CreateTenantBody>;

export const MAX_TENANT_NAME = 128;

/** A tenant as lists show it (CONTRACT §4). */
export const TenantItem = named(
  "TenantItem",
  StrictObject({
    tenant_id: Type.String(),
    name: Type.String(),
    status: TenantStatus,
    role_count: Type.Integer({ minimum: 1 }),
    created_at: IsoTime,
  }),
);

export const TenantPage = named(
  "TenantPage",
  StrictObject({
    tenants: Type.Array(TenantItem),
    next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
);

export const CreatedTenant = named(
  "CreatedTenant",
  StrictObject({
    tenant_id: Type.String(),
    tenant_name: Type.String(),
    roles: Type.Array(Type.String()),
    token: Type.String({ description: "A JWT carrying tenant_admin" }),
    ttl_seconds: Type.Integer(),
  }),
);

export const Me = named(
  "CallerIdentity",
  StrictObject({
    tenant_id: Type.String(),
    tenant_name: Type.Union([Type.String(), Type.Null()]),
    sub: Type.String(),
    roles: Type.Array(Type.String()),
    admin: Type.Boolean(),
    expires_at: IsoTime,
    subject: Type.Optional(
      Type.String({
        description:
          "A subject-restricted token's subject (docs/auth.md): it reaches only that subject's entries",
      }),
    ),
    unscoped: Type.Optional(
      LiteralUnion(UNSCOPED_ACCESS, {
        description: "With `subject`: whether the token reads the tenant's unscoped entries",
      }),
    ),
  }),
);

export const TenantRemoval = named(
  "TenantRemoval",
  StrictObject({
    deleted: Type.String(),
    removed: StrictObject({
      entries: Type.Integer(),
      dead_letters: Type.Integer(),
      roles: Type.Integer(),
      denials: Type.Integer(),
    }),
  }),
);
