import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import { CATEGORIES, type Category } from "../../../src/models/category.ts";
import { ENTRY_INPUT, type EntryDraft } from "../../../src/models/entry.ts";

/** The request schemas of `POST /memory/{category}`, compiled once. */
const CHECKERS = Object.fromEntries(
  CATEGORIES.map((c) => [c, TypeCompiler.Compile(ENTRY_INPUT[c])]),
) as unknown as Record<Category, TypeCheck<TSchema>>;

/**
 * A draft that did not come through the API (a source event's) is checked against the same schema
 * as an API body: routes check theirs before the tenant actor sees them.
 */
export function checkDraft(draft: EntryDraft): void {
  const { category, ...body } = draft;
  if (CHECKERS[category].Check(body)) return;
  const first = CHECKERS[category].Errors(body).First();
  const path = first?.path || "/";
  const message = first?.message ?? "does not match its category";
  throw new ValidationFailed(`${path} ${message}`, [{ path, message }]);
}
