import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { sendsHeaders } from "../http/openapi-headers.ts";
import { unchecked } from "../http/unchecked-response.ts";
import { validatedBody } from "../http/validate-body.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import {
  BatchBody,
  batchReplyOf,
  ENTRY_INPUT,
  EntryParams,
  entryPageOf,
  entryViewOf,
  ListEntriesQuery,
  MAX_BATCH,
  ReadEntryQuery,
} from "../models/entry.ts";
import { EntryHistory } from "../models/history.ts";
import { problems, problemWith } from "../models/problem.ts";
import { trustForbidden } from "../models/problem-trust.ts";
import { WriteQuery, writtenEntry, writtenEntryOf } from "../models/similar.ts";
import { WriteHeaders } from "./model.ts";
import type { MemoryService } from "./service.ts";

/** What a write's 422 means besides a body the schema refuses. */
const IDEMPOTENT_422 =
  "Validation failed (the body, or a rule the schema states in words: a reference to an entry of this tenant, valid_to after valid_from), or an Idempotency-Key used within 24 h with another body (`idempotency_mismatch`)";
/** A batch body may be this many times the single-write body limit. */
const BATCH_BODY_FACTOR = 16;
/** The header a replayed write is sent with (declared in the document, src/http/openapi-headers.ts). */
const REPLAYED = "idempotent-replayed";

export interface MemoryRouteDeps {
  http: HttpKit;
  memory: MemoryService;
  /** The single-write body limit (a batch may be BATCH_BODY_FACTOR times it). */
  config: { bodyLimitBytes: number };
}

function categoryRoutes({ http, memory, config }: MemoryRouteDeps, category: Category) {
  const plural = PLURAL_OF[category];
  const tags = ["memory"];
  const Entry = unchecked(entryViewOf(category));
  const Written = unchecked(writtenEntryOf(category));
  const BatchReply = unchecked(batchReplyOf(category));
  return new Elysia({ name: `routes.memory.${plural}` })
    .use(http.authPlugin)
    .post(
      `/memory/${plural}`,
      async ({ body, principal, req, headers, query, set }) => {
        const reply = await memory.create(
          { principal, req },
          category,
          body,
          headers["idempotency-key"],
          query.dedupe,
        );
        set.status = reply.status;
        if (reply.status === 201) set.headers.location = `/memory/${plural}/${reply.entry.id}`;
        if (reply.replayed) set.headers[REPLAYED] = "true";
        return writtenEntry(reply);
      },
      {
        auth: "caller",
        ...validatedBody(ENTRY_INPUT[category]),
        headers: WriteHeaders,
        query: WriteQuery,
        response: {
          200: Written,
          201: Written,
          ...problems(400, 401, 413, 415, 503, 507),
          ...trustForbidden(),
          ...problemWith(422, IDEMPOTENT_422),
        },
        detail: {
          tags,
          summary: `Create a ${category}; live near-duplicates are listed in \`similar\`, and \`?dedupe=similar\` answers one instead of writing`,
          ...sendsHeaders({ 200: ["Idempotent-Replayed"], 201: ["Location"] }),
        },
      },
    )
    .post(
      `/memory/${plural}/batch`,
      async ({ body, principal, req, headers, set }) => {
        const reply = await memory.createMany(
          { principal, req },
          category,
          body.entries,
          headers["idempotency-key"],
        );
        set.status = reply.status;
        if (reply.replayed) set.headers[REPLAYED] = "true";
        return { entries: reply.entries, statuses: reply.statuses };
      },
      {
        auth: { level: "caller", bodyLimit: config.bodyLimitBytes * BATCH_BODY_FACTOR },
        ...validatedBody(BatchBody(category)),
        headers: WriteHeaders,
        response: {
          200: BatchReply,
          201: BatchReply,
          ...problems(400, 401, 413, 415, 503, 507),
          ...trustForbidden(),
          ...problemWith(422, IDEMPOTENT_422),
        },
        detail: {
          tags,
          summary: `Create up to ${MAX_BATCH} ${plural} at once: all checked before any is written, one transaction`,
          ...sendsHeaders({ 200: ["Idempotent-Replayed"] }),
        },
      },
    )
    .get(
      `/memory/${plural}`,
      ({ query, principal, req }) => memory.list({ principal, req }, category, query),
      {
        auth: "caller",
        query: ListEntriesQuery,
        response: { 200: unchecked(entryPageOf(category)), ...problems(401, 403, 422, 503, 507) },
        detail: {
          tags,
          summary:
            category === "outcome" ? "List outcomes of resolved decisions" : `List ${plural}, newest first`,
        },
      },
    )
    .get(
      `/memory/${plural}/:sha8`,
      ({ params, query, principal, req }) =>
        memory.get({ principal, req }, category, params.sha8, query.include === "embedding"),
      {
        auth: "caller",
        params: EntryParams,
        query: ReadEntryQuery,
        response: { 200: Entry, ...problems(401, 403, 404, 410, 422, 503, 507) },
        detail: { tags, summary: `Read one ${category} by its SHA-8 id` },
      },
    )
    .delete(
      `/memory/${plural}/:sha8`,
      ({ params, principal, req }) => memory.retract({ principal, req }, category, params.sha8),
      {
        auth: "caller",
        params: EntryParams,
        response: { 200: Entry, ...problems(401, 404, 410, 422, 503, 507), ...trustForbidden() },
        detail: {
          tags,
          summary: `Retract a ${category}: known no more from now on (expired_at); as_of an earlier time still sees it`,
        },
      },
    )
    .get(
      `/memory/${plural}/:sha8/history`,
      ({ params, principal, req }) => memory.history({ principal, req }, category, params.sha8),
      {
        auth: "caller",
        params: EntryParams,
        response: { 200: unchecked(EntryHistory), ...problems(401, 403, 404, 422, 503, 507) },
        detail: {
          tags,
          summary: `The ${category}'s versions and what happened to it, in transaction-time order`,
        },
      },
    );
}

/** `/memory/{category}` for the six categories, each with its own strict body schema. */
export const memoryRoutes = (deps: MemoryRouteDeps) => {
  let app = new Elysia({ name: "routes.memory" });
  for (const category of CATEGORIES) app = app.use(categoryRoutes(deps, category)) as unknown as typeof app;
  return app;
};
