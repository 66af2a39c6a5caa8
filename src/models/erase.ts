import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { Chars } from "./chars.ts";
import { IsoTime, LiteralUnion, Sha8, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/**
 * `POST /admin/tenants/{tenant_id}/erase`: at least one of ids, subject, tags (the route checks it;
 * the `anyOf` of required members says it in the document, and TypeBox does not read it).
 */
export const EraseRequest = named(
  "EraseRequest",
  StrictObject(
    {
      ids: Type.Optional(Type.Array(Sha8, { minItems: 1, maxItems: 10_000, description: "entries by id" })),
      subject: Type.Optional(
        Chars(3, 256, {
          description: "erase every entry mentioning it (case-insensitive, in any field of its content)",
        }),
      ),
      tags: Type.Optional(
        Type.Array(Chars(1, 64), { minItems: 1, maxItems: 64, description: "entries carrying any of them" }),
      ),
      dry_run: Type.Optional(Type.Boolean({ description: "answer what would be erased, erase nothing" })),
    },
    {
      anyOf: [{ required: ["ids"] }, { required: ["subject"] }, { required: ["tags"] }],
      description: "Name what to erase: ids, subject or tags (at least one; `{}` is a 422)",
    },
  ),
);
export type EraseRequest = Static<typeof EraseRequest>;

export const EraseReport = named(
  "EraseReport",
  StrictObject({
    erased: Type.Array(StrictObject({ id: Sha8, category: LiteralUnion(CATEGORIES) })),
    already_erased: Type.Array(Sha8),
    dead_letters_removed: Type.Integer({ minimum: 0 }),
    idempotency_records_removed: Type.Integer({ minimum: 0 }),
    deliveries_removed: Type.Integer({
      minimum: 0,
      description:
        "Delivery log records of the erased entries (or naming the subject), and held events naming it",
    }),
    erased_at: IsoTime,
    dry_run: Type.Boolean(),
  }),
);
export type EraseReport = Static<typeof EraseReport>;
