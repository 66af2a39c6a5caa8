import { NotFound } from "../errors/domain-errors.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import { safeEcho } from "./safe-echo.ts";

const PATHS = CATEGORIES.map((c) => `/memory/${PLURAL_OF[c]}`);
const PLURALS = new Set(Object.values(PLURAL_OF));

/**
 * A route miss under `/memory/<x>` where `<x>` is no memory path: a 404 that lists the six category
 * paths, and suggests the plural when `<x>` is a category's singular (`/memory/fact`) or another case
 * of one (`/memory/Facts`). Undefined for any other path (the plain "no such route").
 */
export function categoryMiss(path: string): NotFound | undefined {
  const match = /^\/memory\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return undefined;
  const [, segment = "", rest = ""] = match;
  if (PLURALS.has(segment)) return undefined;
  const plural = pluralFor(segment.toLowerCase());
  const hint = plural ? ` (did you mean /memory/${plural}${safeRest(rest)}?)` : "";
  return new NotFound(
    `no memory category ${JSON.stringify(safeEcho(segment))}${hint}: the category paths are ${PATHS.join(", ")}`,
  );
}

function pluralFor(segment: string): string | undefined {
  if (PLURALS.has(segment)) return segment;
  return (CATEGORIES as readonly string[]).includes(segment) ? PLURAL_OF[segment as Category] : undefined;
}

/** The rest of the path, kept in the suggestion when it is plain (an entry id, `batch`). */
function safeRest(rest: string): string {
  return /^(\/[A-Za-z0-9_-]{1,64}){0,2}$/.test(rest) ? rest : "";
}
