import { ValidationFailed } from "../errors/domain-errors.ts";
import { ULID_RE } from "../models/common.ts";

/** The opaque cursor of the tenant list (the routes' and the dashboard's): the last tenant id shown. */
export function tenantCursor(tenantId: string): string {
  return Buffer.from(tenantId).toString("base64url");
}

/** The tenant id an opaque tenant-list cursor stands for; a cursor this API did not return → 422. */
export function tenantCursorOf(cursor: string): string {
  const id = cursor.length <= 64 ? Buffer.from(cursor, "base64url").toString("latin1") : "";
  if (!ULID_RE.test(id))
    throw new ValidationFailed("cursor is malformed", [
      { path: "/cursor", message: "not a cursor this API returned" },
    ]);
  return id;
}
