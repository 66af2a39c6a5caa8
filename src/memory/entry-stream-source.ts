/**
 * What a caller's live stream shows: which categories and tags it follows (parsed and authorised
 * once, when it opens), and how each change of the tenant becomes an event (re-authorised at every
 * event, so deleting a role narrows streams already open, as it does tokens already issued).
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { allowedCategories } from "../auth/permissions.ts";
import { AppError, ValidationFailed } from "../errors/domain-errors.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import { CHANGE_TYPES, type Change, type ChangeType } from "../models/change.ts";
import { charCount } from "../models/chars.ts";
import type { Entry } from "../models/entry.ts";
import { inScope, type ScopeQuery, scopeFilterOf } from "../models/scope.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import type { ChangeListener } from "./change-feed.ts";
import type { ChangeSource } from "./entry-stream.ts";

/**
 * The changes agents do not see: `deadletter.created` is the operator's business, and a merge
 * reaches agents as `entry.merged` on the absorbed entry (now hidden) and `entry.unmerged` (live
 * again), not as the survivor's `entry.absorbed` (docs/memory.md). Every other type is theirs, so a
 * new change type reaches agents unless it is listed here.
 */
const NOT_FOR_AGENTS: ReadonlySet<ChangeType> = new Set<ChangeType>(["deadletter.created", "entry.absorbed"]);
const AGENT_CHANGES: ReadonlySet<ChangeType> = new Set(
  CHANGE_TYPES.filter((type) => !NOT_FOR_AGENTS.has(type)),
);

const MAX_TAGS = 64;
const MAX_TAG_CHARS = 64;

export interface StreamFilter {
  /** The categories named, or undefined: all the caller may read. */
  categories?: Category[];
  /** Every one must be on an entry. */
  tags: string[];
}

/**
 * `?categories=fact,decision&tags=a,b`: commas separate, blanks around names and empty items are
 * ignored; a parameter given more than once counts with all its values (`?tags=a&tags=b`).
 */
export function streamFilterOf(params: URLSearchParams): StreamFilter {
  const list = (name: string) => (params.has(name) ? params.getAll(name).join(",") : undefined);
  return parseStreamFilter({ categories: list("categories"), tags: list("tags") });
}

export function parseStreamFilter(query: { categories?: string; tags?: string }): StreamFilter {
  const filter: StreamFilter = { tags: [] };
  if (query.categories !== undefined) {
    const names = items(query.categories);
    const unknown = names.find((name) => !(CATEGORIES as readonly string[]).includes(name));
    if (unknown !== undefined)
      throw new ValidationFailed(`categories: unknown category; one of ${CATEGORIES.join(", ")}`, [
        { path: "/categories", message: `one of ${CATEGORIES.join(", ")}` },
      ]);
    if (names.length > 0) filter.categories = [...new Set(names as Category[])];
  }
  if (query.tags !== undefined) {
    const tags = [...new Set(items(query.tags))];
    if (tags.length > MAX_TAGS)
      throw new ValidationFailed(`tags: at most ${MAX_TAGS}`, [
        { path: "/tags", message: `at most ${MAX_TAGS} tags` },
      ]);
    if (tags.some((tag) => charCount(tag, MAX_TAG_CHARS) > MAX_TAG_CHARS))
      throw new ValidationFailed(`tags: each at most ${MAX_TAG_CHARS} characters`, [
        { path: "/tags", message: `each tag 1–${MAX_TAG_CHARS} characters` },
      ]);
    filter.tags = tags;
  }
  return filter;
}

function items(list: string): string[] {
  return list
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** The resume position: the `Last-Event-ID` header, else `?last_event_id=` (their schemas checked the digits). */
export function resumePosition(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header ?? query;
  if (raw === undefined) return undefined;
  const position = Number(raw);
  if (!Number.isSafeInteger(position))
    throw new ValidationFailed("Last-Event-ID must be a change position (digits)", [
      { path: "/last-event-id", message: "a non-negative integer" },
    ]);
  return position;
}

/**
 * The categories a stream follows: those named, or every one the caller may read. The operator
 * has no memory; a caller who may read nothing, or names a category it may not read, is refused
 * (audited like every 403).
 */
export function streamCategories(guard: Guard, caller: Caller, requested?: Category[]): Category[] {
  const { principal, req } = caller;
  if (principal.admin)
    throw guard.deny(principal, req, "memory:read", "the operator has no memory: use a tenant token");
  const allowed = new Set(allowedCategories(guard.permissionsOf(principal), "read"));
  if (allowed.size === 0)
    throw guard.denyUngranted(principal, req, "memory:read", "no role grants memory:read");
  const refused = requested?.find((c) => !allowed.has(c));
  if (refused)
    throw guard.denyUngranted(
      principal,
      req,
      `memory:read:${PLURAL_OF[refused]}`,
      "no role grants read on that category",
    );
  return requested ?? [...allowed];
}

export interface TenantChangeSourceDeps {
  guard: Guard;
  /** Asked at each event whether the tenant still exists and is active. */
  tenants: Pick<TenantDirectory, "get">;
  tenant: ActorRef<TenantProtocol>;
  subscribe(listener: ChangeListener): () => void;
}

/** The change as an event shows it: the log record without the dead-letter fields. */
function changeView(change: Change) {
  const { seq, at, type, id, category, by, related } = change;
  return { seq, at, type, id, category, by, ...(related !== undefined ? { related } : {}) };
}

/**
 * One tenant's changes, for one caller, filtered by categories, tags and scope (subject, session,
 * agent, and a subject-restricted token's reach). A scoped stream shows no erasures: nothing is
 * left of an erased entry to say whose it was, and its id is not another subject's business.
 */
export function tenantChangeSource(
  deps: TenantChangeSourceDeps,
  caller: Caller,
  categories: Category[],
  tags: string[],
  scope?: ScopeQuery,
): ChangeSource {
  const { principal } = caller;
  const inScopeOf = scopeFilterOf(scope ?? {}, principal.reach);
  const followed = new Set(categories);
  /** Read permission as the roles say now. */
  const readable = (category: Category) =>
    allowedCategories(deps.guard.permissionsOf(principal), "read").includes(category);
  return {
    subscribe: deps.subscribe,
    since: (after, limit) => deps.tenant.ask({ type: "changes.since", after, limit }),
    endReason() {
      const tenant = deps.tenants.get(principal.tenantId);
      if (!tenant) return "the tenant was deleted";
      if (tenant.status === "suspended") return "the tenant is suspended";
      return undefined;
    },
    async render(change) {
      const category = change.category;
      if (!AGENT_CHANGES.has(change.type) || !category) return undefined;
      if (!followed.has(category) || !readable(category)) return undefined;
      // An erasure keeps nothing of the entry but its id; it passes the tag filter, so that a
      // client holding a copy learns to drop it.
      if (change.type === "entry.erased")
        return inScopeOf
          ? undefined
          : JSON.stringify({
              change: changeView(change),
              entry: { id: change.id, category, erased_at: change.at },
            });
      const entry = await currentEntry(deps.tenant, category, change.id);
      if (!entry || !tags.every((tag) => entry.tags?.includes(tag))) return undefined;
      if (inScopeOf && !inScope(entry, inScopeOf)) return undefined;
      return JSON.stringify({ change: changeView(change), entry });
    },
  };
}

/** The entry as GET answers it now; undefined once it is gone (erased since: its erasure follows). */
async function currentEntry(
  tenant: ActorRef<TenantProtocol>,
  category: Category,
  id: string,
): Promise<Entry | undefined> {
  try {
    return await tenant.ask({ type: "entry.get", category, id, includeEmbedding: false });
  } catch (error) {
    if (error instanceof AppError && (error.status === 404 || error.status === 410)) return undefined;
    throw error;
  }
}
