/**
 * The admin webhook routes' own schemas and bounds. The contract models (dead letters, the
 * delivery log, bulk replies) stay in src/models/: the vault, the actor slices and the dashboard share them.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { sentJsonNull } from "../http/body.ts";
import { checkBody } from "../http/validate-body.ts";
import { LiteralUnion, QueryInteger, QueryObject } from "../models/common.ts";
import { DEAD_LETTER_STATUSES } from "../models/dead-letter.ts";
import { bulkReplayBody, deliveryQuery, sourcePathParams } from "../models/webhook-operations.ts";
import { SOURCE_IDS } from "../sources/registry.ts";
import { PAUSABLE_SOURCES } from "./operations.ts";

/** Event ids come from sources and are clipped to 512 characters there; the lookup is an exact key match. */
export const MAX_EVENT_ID = 512;
/** The messaging bridge's dead letters are replayable too, though it has no webhook route. */
export const REPLAYABLE_SOURCES = [...SOURCE_IDS, "messaging"] as const;

export const DeadLetterQuery = QueryObject({
  status: Type.Optional(LiteralUnion(DEAD_LETTER_STATUSES)),
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 1000, default: 100 })),
});
/** The messaging bridge's dead letters are replayable too, though it has no webhook route. */
export const ReplayQuery = QueryObject({
  source: Type.Optional(LiteralUnion(REPLAYABLE_SOURCES)),
});
export const ReplayParams = Type.Object({ tenant_id: Type.String(), event_id: Type.String() });

export const DeliveryQuery = deliveryQuery(PAUSABLE_SOURCES);
export const SourceParams = sourcePathParams(PAUSABLE_SOURCES);

/**
 * No body (read as null): every dead letter still dead, 100 at most. Checked by our compiled
 * check (arrays and scalars refused: Elysia's own lets them through as `{}`); the schema documents it.
 */
const bulkBody = bulkReplayBody(PAUSABLE_SOURCES);
const bulkCheck = TypeCompiler.Compile(bulkBody) as TypeCheck<TSchema>;
export const BulkReplayBody = {
  body: Type.Optional(bulkBody),
  checkBody: TypeCompiler.Compile(
    Type.Union([bulkBody, Type.Undefined(), Type.Null()]),
  ) as TypeCheck<TSchema>,
  // A JSON `null` is refused (422) like `[]` or `5`: the reader answers it as it does no body (and
  // Elysia then fills in the defaults), so the request tells the two apart.
  beforeHandle({ request }: { request: Request }) {
    if (sentJsonNull(request)) checkBody(bulkCheck, null);
  },
};
