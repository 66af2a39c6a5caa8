import { type Static, Type } from "@sinclair/typebox";
import { IsoTime, NextCursor, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/** One RBAC refusal, recorded before its 403 is sent (CONTRACT §4). */
export const Denial = named(
  "Denial",
  StrictObject({
    at: IsoTime,
    tenant_id: Type.String(),
    sub: Type.String(),
    roles: Type.Array(Type.String()),
    method: Type.String(),
    path: Type.String(),
    permission: Type.String(),
    reason: Type.String(),
  }),
);
export type Denial = Static<typeof Denial>;

export const DenialPage = named(
  "DenialPage",
  StrictObject({ denials: Type.Array(Denial), next_cursor: NextCursor }),
);
