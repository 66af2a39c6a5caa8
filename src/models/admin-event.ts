import { type Static, Type } from "@sinclair/typebox";
import { IsoTime, NextCursor, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/** One operator action in the admin audit log (`GET /admin/audit/events`): never a secret or a token. */
export const AdminEvent = named(
  "AdminEvent",
  StrictObject({
    at: IsoTime,
    action: Type.String({ description: "tenant.created, tenant.suspended, role.deleted, token.minted, …" }),
    sub: Type.String({ description: "The operator token's sub" }),
    tenant_id: Type.Union([Type.String(), Type.Null()]),
    target: Type.Union([Type.String(), Type.Null()], {
      description: "A role name, an event id, a token's sub",
    }),
    details: Type.Record(Type.String(), Type.Unknown()),
  }),
);
export type AdminEvent = Static<typeof AdminEvent>;

export const AdminEventPage = named(
  "AdminEventPage",
  StrictObject({ events: Type.Array(AdminEvent), next_cursor: NextCursor }),
);
