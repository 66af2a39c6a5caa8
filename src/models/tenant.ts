import { type Static, Type } from "@sinclair/typebox";
import { StrictObject } from "./common.ts";

export const TENANT_STATUSES = ["active", "suspended"] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

export interface Tenant {
  tenant_id: string;
  name: string;
  status: TenantStatus;
  created_at: string;
}

/** `name`: 1–128 characters after trimming (CONTRACT §4). */
export const CreateTenantBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 512, description: "1–128 characters after trimming" }),
});
export type CreateTenantBody = Static<typeof CreateTenantBody>;

export const MAX_TENANT_NAME = 128;
