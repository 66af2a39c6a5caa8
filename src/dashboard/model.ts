/**
 * The dashboard's own schemas: the HTML responses as the OpenAPI document declares them, and the
 * queries and forms of its pages.
 */
import { Type } from "@sinclair/typebox";
import { CATEGORIES } from "../models/category.ts";
import { Chars } from "../models/chars.ts";
import { LiteralUnion, PageQuery, QueryInteger, QueryObject } from "../models/common.ts";
import { REPLAY_STATUSES } from "../models/dead-letter.ts";
import { sentAs } from "../models/media-type.ts";
import { SOURCE_STATUSES } from "../models/webhook-operations.ts";
import { MAX_EVENT_ID, REPLAYABLE_SOURCES } from "../webhooks/model.ts";
import { PAUSABLE_SOURCES } from "../webhooks/operations.ts";

export const HtmlPage = sentAs("text/html", Type.String({ description: "an HTML page" }));
export const Redirect = Type.String({ description: "empty; Location names the next page" });
export const DASHBOARD_TAGS = ["dashboard"];
/** Results the search box shows unless told. */
export const SEARCH_LIMIT = 20;

/**
 * The dashboard's refusals are pages for a person (dashboardErrorPage): the sign-in form, saying
 * why, for a 401 or 403; an error page, with the error's headers, for any other.
 */
export function pages(...statuses: number[]): Record<number, typeof HtmlPage> {
  const out: Record<number, typeof HtmlPage> = {};
  for (const status of statuses)
    out[status] = {
      ...HtmlPage,
      description:
        status === 401 || status === 403 ? "The sign-in form, saying why" : "An error page, saying why",
    };
  return out;
}

/** The form token of a page's session (src/http/dashboard-form.ts): needed with the cookie. */
export const FormToken = Type.Optional(
  Chars(1, 128, { description: "the page's form token (needed with the cookie)" }),
);

export const DashboardQuery = PageQuery(100, 25);
export const SignInForm = Type.Object(
  { token: Chars(1, 8192, { description: "the operator's (admin) JWT" }) },
  { additionalProperties: true },
);

/** What the tenant page's last form did, from the redirect that came back to it. */
export const TenantPageQuery = QueryObject({
  replayed: Type.Optional(LiteralUnion(REPLAY_STATUSES, { description: "what the last replay did" })),
  event: Type.Optional(Chars(1, MAX_EVENT_ID, { description: "the event the last replay was of" })),
  discarded: Type.Optional(Chars(1, MAX_EVENT_ID, { description: "the event the last discard was of" })),
  changed: Type.Optional(
    LiteralUnion(SOURCE_STATUSES, { description: "the source's status after the last pause or resume" }),
  ),
  source: Type.Optional(LiteralUnion(PAUSABLE_SOURCES, { description: "the source last paused or resumed" })),
  status: Type.Optional(
    LiteralUnion(["suspended", "active"] as const, { description: "the status the last button set" }),
  ),
  show: Type.Optional(
    LiteralUnion(["all"] as const, {
      description: "`all`: recent entries superseded, retracted, ended or not yet valid are listed too",
    }),
  ),
});
export const SourceForm = Type.Object(
  {
    source: LiteralUnion(PAUSABLE_SOURCES, { description: "a webhook source id, or messaging" }),
    action: LiteralUnion(["pause", "resume"] as const),
    form_token: FormToken,
  },
  { additionalProperties: true },
);
/** The replay's and the discard's form: one dead letter. */
export const ReplayForm = Type.Object(
  {
    event_id: Chars(1, MAX_EVENT_ID, { description: "the dead letter's event id" }),
    source: LiteralUnion(REPLAYABLE_SOURCES, { description: "the dead letter's source" }),
    form_token: FormToken,
  },
  { additionalProperties: true },
);

/**
 * An entry page's address: any strings, checked by the service (a 404 page for a category or an id
 * that names no entry, rather than a 422 for a mistyped link).
 */
export const EntryPageParams = Type.Object({
  tenant_id: Type.String({ description: "The tenant's ULID" }),
  category: Type.String({ description: "The entry's category, singular (`fact`, `decision`…)" }),
  id: Type.String({ description: "The entry's SHA-8 id" }),
});

/** The search box's query: the words, a category, how many results. */
export const SearchPageQuery = QueryObject({
  q: Type.Optional(Chars(0, 4096, { description: "the words to search for (empty: the newest entries)" })),
  category: Type.Optional(
    LiteralUnion([...CATEGORIES, ""] as const, { description: "one category only; empty: all six" }),
  ),
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100, default: SEARCH_LIMIT })),
});

/** The tenant page's suspend or resume button. */
export const StatusForm = Type.Object(
  {
    status: LiteralUnion(["suspended", "active"] as const, { description: "the tenant's status to set" }),
    form_token: FormToken,
  },
  { additionalProperties: true },
);
