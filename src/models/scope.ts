import { Type } from "@sinclair/typebox";
import type { Category } from "./category.ts";
import { Chars } from "./chars.ts";

/**
 * Scopes inside a tenant (docs/memory.md "Scopes"): the end user or account an entry is about
 * (`subject`), the conversation it came from (`session_id`), and the agent that wrote it (`agent_id`,
 * as before). A subject or session id is an identifier, not text: 1–128 ASCII characters, letters,
 * digits and `. _ : @ -`, starting with a letter or a digit (`user-42`, `acct:9F2`, `ada@example.com`),
 * so it can be compared exactly, logged and put in a URL without escaping. Case matters.
 */
export const SCOPE_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$";
const SCOPE_ID = new RegExp(SCOPE_ID_PATTERN);

export const MAX_SCOPE_ID = 128;

export function isScopeId(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_SCOPE_ID && SCOPE_ID.test(value);
}

export const ScopeId = (description: string) =>
  Type.String({ pattern: SCOPE_ID_PATTERN, minLength: 1, maxLength: MAX_SCOPE_ID, description });

export const SubjectId = ScopeId(
  "The end user or account this memory is about: 1–128 of A–Z a–z 0–9 . _ : @ -, starting with a letter or digit",
);
export const SessionId = ScopeId(
  "The session (conversation) this memory came from: the same rule as `subject`",
);
/** `agent_id` keeps its rule of before (any 1–128 characters): entries stored with it stay readable. */
export const AgentId = Chars(1, 128, { description: "The agent that wrote it (default: the token's `sub`)" });

/**
 * A relationship's own `subject` is its triple's (`Ada` `works at` `Acme`, CONTRACT §5), so on a
 * relationship the scope's subject is named `scope_subject`; every filter named `subject` reads it.
 */
export const RELATIONSHIP_SCOPE_FIELD = "scope_subject";

/** The field holding the scope's subject on an entry (or a draft) of `category`. */
export function subjectField(category: Category): "subject" | "scope_subject" {
  return category === "relationship" ? RELATIONSHIP_SCOPE_FIELD : "subject";
}

/** The scope's subject of an entry or a draft (undefined: unscoped). */
export function subjectOf(entry: { category: Category }): string | undefined {
  const value = (entry as Record<string, unknown>)[subjectField(entry.category)];
  return typeof value === "string" ? value : undefined;
}

/** The scope filters a caller gives (query or body): each one exact, all must hold. */
export interface ScopeQuery {
  subject?: string;
  session_id?: string;
  agent_id?: string;
}

/**
 * A subject-restricted token's reach (src/auth/subject-scope.ts): entries of this subject, and
 * unscoped ones (no subject) when `unscoped`. A model, so that the caller and the scope rules both
 * name it without importing each other.
 */
export interface SubjectReach {
  subject: string;
  unscoped: boolean;
}

/** The scope filters of a list, a search, a stream or an export, and the caller's reach. */
export interface ScopeFilter extends ScopeQuery {
  within?: SubjectReach;
}

/** The three filters as query or body properties, the same names as the entry's fields. */
export const SCOPE_FILTERS = {
  subject: Type.Optional(ScopeId("Only entries about this subject (a relationship's `scope_subject`)")),
  session_id: Type.Optional(ScopeId("Only entries of this session")),
  agent_id: Type.Optional(Chars(1, 128, { description: "Only entries written by this agent" })),
};

/** The filters given and the caller's reach (undefined when neither: nothing to check). */
export function scopeFilterOf(q: ScopeQuery, within?: ScopeFilter["within"]): ScopeFilter | undefined {
  const f: ScopeFilter = {};
  if (q.subject !== undefined) f.subject = q.subject;
  if (q.session_id !== undefined) f.session_id = q.session_id;
  if (q.agent_id !== undefined) f.agent_id = q.agent_id;
  if (within) f.within = within;
  return Object.keys(f).length > 0 ? f : undefined;
}

/**
 * A lookup of the entries a write may name (supersedes, corrects, an outcome's decision): those in
 * the writer's reach; any other is not there for it (422, as an id of no entry).
 */
export function reachableLookup<S extends { entry: { category: Category } }>(
  lookup: (id: string) => S | undefined,
  within: ScopeFilter["within"],
): (id: string) => S | undefined {
  if (!within) return lookup;
  return (id) => {
    const found = lookup(id);
    return found && inScope(found.entry, { within }) ? found : undefined;
  };
}

/** Whether an entry passes a scope filter (the entry summary checks the same on its columns). */
export function inScope(
  entry: { category: Category; session_id?: string; agent_id?: string },
  f: ScopeFilter,
): boolean {
  const subject = subjectOf(entry);
  if (f.subject !== undefined && subject !== f.subject) return false;
  if (f.session_id !== undefined && entry.session_id !== f.session_id) return false;
  if (f.agent_id !== undefined && entry.agent_id !== f.agent_id) return false;
  if (f.within && !(subject === undefined ? f.within.unscoped : subject === f.within.subject)) return false;
  return true;
}
