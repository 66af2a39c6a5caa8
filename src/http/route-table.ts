/**
 * Which methods the app serves at a path, from the routes Elysia registered: a known path asked
 * with another method is a 405 naming them (`Allow`), not a 404. Loaded once the routes exist.
 */
export class RouteTable {
  private patterns: Array<{ method: string; regex: RegExp }> = [];

  load(routes: ReadonlyArray<{ method: string; path: string }>): void {
    this.patterns = routes.map((r) => ({ method: r.method.toUpperCase(), regex: patternOf(r.path) }));
  }

  /** Methods with a route matching `path` (sorted, unique); empty for an unknown path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const { method, regex } of this.patterns) if (regex.test(path)) methods.add(method);
    return [...methods].sort();
  }
}

/** `/memory/facts/:sha8` → /^\/memory\/facts\/[^/]+$/ (`*` matches the rest of the path). */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) return "[^/]+";
      if (segment === "*") return ".*";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}/?$`);
}
