import { Type } from "@sinclair/typebox";
import { IdempotencyKey } from "../models/entry.ts";

/** `Idempotency-Key`: 1–255 visible ASCII characters (CONTRACT §5). */
export const WriteHeaders = Type.Object({ "idempotency-key": Type.Optional(IdempotencyKey) });
