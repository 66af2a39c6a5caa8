import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { unchecked } from "../http/unchecked-response.ts";
import { validatedBody } from "../http/validate-body.ts";
import {
  MergeBody,
  MergeParams,
  MergeRecord,
  ReviewPage,
  ReviewParams,
  ReviewQuery,
} from "../models/merge.ts";
import { problems, problemWith } from "../models/problem.ts";
import { Decided } from "./model.ts";
import type { MergeService } from "./service.ts";

export interface MergeRouteDeps {
  http: HttpKit;
  merges: MergeService;
}

const tags = ["memory"];
const MERGE_409 =
  "An entry of the pair is merged already, retracted, superseded or corrected; or the merge was undone, the review decided";

/** Accept and reject answer alike; only their summaries differ. */
const decision = (summary: string) => ({
  auth: "caller" as const,
  params: ReviewParams,
  response: {
    200: unchecked(Decided),
    ...problems(401, 403, 404, 422, 503, 507),
    ...problemWith(409, MERGE_409),
  },
  detail: { tags, summary },
});

/** Merges of near-duplicates, their un-merge and the review band (docs/memory.md, "Merging near-duplicates"). */
export const mergeRoutes = ({ http, merges }: MergeRouteDeps) =>
  new Elysia({ name: "routes.merges" })
    .use(http.authPlugin)
    .post(
      "/memory/merges",
      async ({ body, principal, req, set }) => {
        const record = await merges.merge({ principal, req }, body);
        set.status = 201;
        return record;
      },
      {
        auth: "caller",
        ...validatedBody(MergeBody),
        response: {
          201: unchecked(MergeRecord),
          ...problems(400, 401, 403, 404, 415, 503, 507),
          ...problemWith(409, MERGE_409),
          ...problemWith(
            422,
            "Validation failed: an id that is not an id, an entry merged into itself, two subjects",
          ),
        },
        detail: {
          tags,
          summary: "Merge an entry into another: both kept, the read model shows the survivor",
        },
      },
    )
    .get("/memory/merges/review", ({ query, principal, req }) => merges.reviews({ principal, req }, query), {
      auth: "caller",
      query: ReviewQuery,
      response: { 200: unchecked(ReviewPage), ...problems(401, 403, 422, 503, 507) },
      detail: { tags, summary: "Pairs in the review band waiting for a decision, a page at a time" },
    })
    .post(
      "/memory/merges/review/:id/accept",
      ({ params, principal, req }) => merges.decide({ principal, req }, params.id, true),
      decision("Accept a review: the pair is merged"),
    )
    .post(
      "/memory/merges/review/:id/reject",
      ({ params, principal, req }) => merges.decide({ principal, req }, params.id, false),
      decision("Reject a review: both entries kept, the pair never flagged again"),
    )
    .get("/memory/merges/:id", ({ params, principal, req }) => merges.get({ principal, req }, params.id), {
      auth: "caller",
      params: MergeParams,
      response: { 200: unchecked(MergeRecord), ...problems(401, 403, 404, 422, 503, 507) },
      detail: { tags, summary: "A merge, named by its absorbed entry's id" },
    })
    .post(
      "/memory/merges/:id/unmerge",
      ({ params, principal, req }) => merges.unmerge({ principal, req }, params.id),
      {
        auth: "caller",
        params: MergeParams,
        response: {
          200: unchecked(MergeRecord),
          ...problems(401, 403, 404, 422, 503, 507),
          ...problemWith(409, MERGE_409),
        },
        detail: { tags, summary: "Undo a merge: both entries live again, recorded in their history" },
      },
    );
