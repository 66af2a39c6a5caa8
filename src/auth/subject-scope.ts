/**
 * Subject-restricted tokens (docs/auth.md "Subject-restricted tokens"): a token minted with the
 * claim `subject` reads, lists, searches and streams only that subject's entries, plus the tenant's
 * unscoped ones (no subject) unless its claim `unscoped` is `none`; it writes only that subject's
 * entries (a write without a subject gets it; another subject is a 403, recorded as every denial).
 * An entry out of its reach does not exist for it: a read is a 404, a link to it a 422.
 */
import { NotFound, Unauthorized } from "../errors/domain-errors.ts";
import type { Category } from "../models/category.ts";
import { UNSCOPED_ACCESS } from "../models/role.ts";
import { inScope, isScopeId, type SubjectReach, subjectField, subjectOf } from "../models/scope.ts";
import type { Caller } from "./caller.ts";
import type { Guard } from "./guard.ts";

/** The claim restricting a token to one subject, and the claim saying what it may do with unscoped entries. */
export const SUBJECT_CLAIM = "subject";
export const UNSCOPED_CLAIM = "unscoped";

/** `read` (the default): unscoped entries are readable; `none`: they are not there for it. */
export type UnscopedAccess = (typeof UNSCOPED_ACCESS)[number];

/**
 * The reach the claims give, or undefined for an unrestricted token. A malformed `subject` or
 * `unscoped` claim (not an id, an unknown value, on an operator token, `unscoped` alone) is a 401:
 * a restriction the runtime cannot read is never ignored.
 */
export function reachOfClaims(claims: Record<string, unknown>): SubjectReach | undefined {
  const subject = claims[SUBJECT_CLAIM];
  const unscoped = claims[UNSCOPED_CLAIM];
  if (subject === undefined) {
    if (unscoped !== undefined) throw new Unauthorized("token claim `unscoped` is given without `subject`");
    return undefined;
  }
  if (!isScopeId(subject))
    throw new Unauthorized(
      "token claim `subject` is not a subject id (1–128 of A–Z a–z 0–9 . _ : @ -, starting with a letter or digit)",
    );
  if (claims.admin === true) throw new Unauthorized("an operator token cannot be restricted to a subject");
  if (unscoped !== undefined && !(UNSCOPED_ACCESS as readonly unknown[]).includes(unscoped))
    throw new Unauthorized(`token claim \`unscoped\` must be one of ${UNSCOPED_ACCESS.join(", ")}`);
  return { subject, unscoped: unscoped !== "none" };
}

/** The claims a mint adds for a restriction (none for an unrestricted token). */
export function subjectClaims(subject?: string, unscoped?: UnscopedAccess): Record<string, string> {
  if (subject === undefined) return {};
  return unscoped === undefined
    ? { [SUBJECT_CLAIM]: subject }
    : { [SUBJECT_CLAIM]: subject, [UNSCOPED_CLAIM]: unscoped };
}

/**
 * The bodies as a restricted caller writes them: each without a subject gets the token's; one
 * naming another subject is refused (403 naming the field, the denial recorded before it is sent).
 * An unrestricted caller's bodies are returned as they are.
 */
export function scopedBodies(
  guard: Guard,
  caller: Caller,
  category: Category,
  bodies: Array<Record<string, unknown>>,
  permission: string,
): Array<Record<string, unknown>> {
  const reach = caller.principal.reach;
  if (!reach) return bodies;
  const field = subjectField(category);
  return bodies.map((body, i) => {
    const given = body[field];
    if (given === undefined) return { ...body, [field]: reach.subject };
    if (given === reach.subject) return body;
    const at = bodies.length > 1 ? `entries/${i}/${field}` : field;
    throw guard.deny(
      caller.principal,
      caller.req,
      permission,
      `${at}: this token is restricted to subject ${reach.subject} and cannot write another subject's entries`,
    );
  });
}

/** The entry, if the caller's reach holds it; else the same 404 as an entry that is not there. */
export function reachable<E extends { id: string; category: Category }>(caller: Caller, entry: E): E {
  const reach = caller.principal.reach;
  if (!reach || inScope(entry, { within: reach })) return entry;
  throw new NotFound(`no ${entry.category} ${entry.id} in this tenant`);
}

/**
 * A change to an entry the caller can see (a retraction): a restricted token changes only its own
 * subject's entries; an unscoped one it may read is refused (403, recorded).
 */
export function changeable<E extends { id: string; category: Category }>(
  guard: Guard,
  caller: Caller,
  entry: E,
  permission: string,
): E {
  const reach = caller.principal.reach;
  if (!reach || subjectOf(reachable(caller, entry)) === reach.subject) return entry;
  throw guard.deny(
    caller.principal,
    caller.req,
    permission,
    `${subjectField(entry.category)}: this token is restricted to subject ${reach.subject} and cannot change unscoped entries`,
  );
}
