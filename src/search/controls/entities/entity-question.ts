/**
 * Whether a query asks about its entities as a whole ("what do we know about Acme?", "tell me
 * about Tara Quigley"): once its function words and its entities' own words are set aside, at most
 * one word is left. Such a question wants the entity's objects side by side (the spread over
 * objects, search-controls.ts); one that says what it wants of the entity ("does Acme have billing
 * trouble and an escalated ticket?") wants those entries, which the spread must not displace.
 */

import { tokenize } from "../../../embedding/tokenize.ts";
import { STOP_WORDS } from "../../lexical/stop-words.ts";
import { entityKey } from "./recognise.ts";

/** Words besides the entities' a general question may hold ("know", "tell", "summary"). */
const MAX_OTHER_WORDS = 1;

export function asksAbout(text: string, entities: readonly string[]): boolean {
  const named = new Set(entities.flatMap((key) => tokenize(key)));
  const others = tokenize(entityKey(text)).filter(
    (w) => !STOP_WORDS.has(w) && !named.has(w.replace(/'s$/, "")),
  );
  return named.size > 0 && others.length <= MAX_OTHER_WORDS;
}
