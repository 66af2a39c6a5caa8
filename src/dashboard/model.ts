/**
 * The dashboard's own schemas: the HTML responses as the OpenAPI document declares them, and the
 * queries and forms of its pages.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { CATEGORIES } from "../models/category.ts";
import { Chars } from "../models/chars.ts";
import { TextMatching } from "../models/checked-kind.ts";
import { Cursor, LiteralUnion, QueryInteger, QueryObject, Timestamp } from "../models/common.ts";
import { REPLAY_STATUSES } from "../models/dead-letter.ts";
import { sentAs } from "../models/media-type.ts";
import { MinTrust } from "../models/origin.ts";
import { MAX_TOKEN_TTL_SECONDS, MintTokenBody, ROLE_NAME_RE } from "../models/role.ts";
import { SubjectId } from "../models/scope.ts";
import { CreateTenantBody, MAX_TENANT_NAME } from "../models/tenant.ts";
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

/** A form of a few short fields (a JWT fits easily): never a way to push a large body. */
export const FORM_LIMIT = 16 * 1024;
/** The `adminForm` option of every dashboard form that changes something; its refusals are pages. */
export const ADMIN_FORM = { limit: FORM_LIMIT, refusals: pages(400, 413, 429) };

/** The form token of a page's session (src/http/dashboard-form.ts): needed with the cookie. */
export const FormToken = Type.Optional(
  Chars(1, 128, { description: "the page's form token (needed with the cookie)" }),
);

/** The overview's page of tenants, and what its last form did (a tenant deleted: its name). */
export const DashboardQuery = QueryObject({
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Cursor),
  deleted: Type.Optional(Chars(1, MAX_TENANT_NAME, { description: "the name of the tenant just deleted" })),
});
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

/** A form's field left empty: the browser sends "", which means "not given". */
const orEmpty = <T extends TSchema>(schema: T) => Type.Union([Type.Literal(""), schema]);

/**
 * The search box's query: the words, a category, how many results, and the search's controls as
 * POST /memory/search takes them (each empty field means "not given").
 */
export const SearchPageQuery = QueryObject({
  q: Type.Optional(Chars(0, 4096, { description: "the words to search for (empty: the newest entries)" })),
  category: Type.Optional(
    LiteralUnion([...CATEGORIES, ""] as const, { description: "one category only; empty: all six" }),
  ),
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100, default: SEARCH_LIMIT })),
  tags: Type.Optional(
    // Within the body's limits (src/models/search.ts: at most 64 tags of 1–64 characters), so the
    // page's query says what the search it runs accepts.
    TextMatching({
      pattern: "^[^,]{0,64}(,[^,]{0,64}){0,63}$",
      maxLength: 1024,
      description:
        "tags every result carries, comma-separated: at most 64, each of at most 64 characters (the body's `tags`)",
      rule: "at most 64 comma-separated tags of at most 64 characters each",
    }),
  ),
  status: Type.Optional(
    LiteralUnion(["", "open", "resolved"] as const, {
      description: "decisions and exceptions of this status",
    }),
  ),
  min_trust: Type.Optional(orEmpty(MinTrust)),
  valid_at: Type.Optional(orEmpty(Timestamp)),
  as_of: Type.Optional(orEmpty(Timestamp)),
});

/** The overview's form: a new tenant's name (its first tenant_admin token is shown once). */
export const CreateTenantForm = Type.Object(
  { name: CreateTenantBody.properties.name, form_token: FormToken },
  { additionalProperties: true },
);

/** Lifetimes the mint form offers, in seconds (the API takes any up to MAX_TOKEN_TTL_SECONDS). */
export const TOKEN_LIFETIMES = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 86400, label: "1 day" },
  { seconds: 7 * 86400, label: "7 days" },
  { seconds: 30 * 86400, label: "30 days" },
  { seconds: 365 * 86400, label: "365 days" },
] as const;

/** A role's name, as the role library's schema has it (ROLE_NAME_RE, without its anchors). */
const ROLE_NAME = ROLE_NAME_RE.source.slice(1, -1);

/** The tenant page's mint form: roles (comma-separated), who it is for, a lifetime, a subject. */
export const MintTokenForm = Type.Object(
  {
    roles: Type.String({
      // One to 32 names, split by commas or spaces: what POST /admin/jwt's `roles` takes.
      pattern: `^[ ,]*${ROLE_NAME}([ ,]+${ROLE_NAME}){0,31}[ ,]*$`,
      maxLength: 2048,
      description:
        "Roles of the tenant's library, separated by commas or spaces (a role it does not hold is a 422 naming it)",
    }),
    sub: Type.Optional(orEmpty(MintTokenBody.properties.sub)),
    ttl_seconds: QueryInteger({ minimum: 1, maximum: MAX_TOKEN_TTL_SECONDS }),
    subject: Type.Optional(orEmpty(SubjectId)),
    form_token: FormToken,
  },
  { additionalProperties: true },
);

/** The tenant page's delete form: the tenant's id typed again, so a slip of the mouse deletes nothing. */
export const DeleteTenantForm = Type.Object(
  {
    confirm: Type.String({
      pattern: "^\\s*[0-9A-HJKMNP-TV-Z]{26}\\s*$",
      maxLength: 64,
      description: "This tenant's id, typed to confirm (blanks at either end aside); another is a 422",
    }),
    form_token: FormToken,
  },
  { additionalProperties: true },
);

/** The tenant page's suspend or resume button. */
export const StatusForm = Type.Object(
  {
    status: LiteralUnion(["suspended", "active"] as const, { description: "the tenant's status to set" }),
    form_token: FormToken,
  },
  { additionalProperties: true },
);
