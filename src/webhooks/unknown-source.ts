import { NotFound } from "../errors/domain-errors.ts";
import { safeEcho } from "../http/safe-echo.ts";

/**
 * The 404 for a path naming no webhook source: it names the sources the route knows, so a caller
 * who typed `stripe` or `hub_spot` sees the id to use (an unknown source is not found, not invalid).
 */
export function unknownSource(source: string, known: readonly string[]): NotFound {
  return new NotFound(`no webhook source ${safeEcho(source)}; sources: ${known.join(", ")}`);
}
