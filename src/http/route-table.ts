/**
 * Which methods the app serves at a path, from the routes Elysia registered: a known path asked
 * with another method is a 405 naming them (`Allow`, RFC 9110 §15.5.6), not a 404 and not another
 * route's answer. Loaded once the routes exist.
 *
 * A path belongs to the most specific pattern that matches it, segment by segment as the router
 * matches (a literal segment before a `:param`, a `:param` before `*`): `/memory/facts/batch` is
 * the batch route's (POST), never the `/memory/facts/:sha8` route's, although that pattern matches
 * it too. The router itself does not know this: asked `GET /memory/facts/batch`, it finds the
 * `:sha8` route, which serves GET. Such a path is a *shadow* of a less specific pattern, and
 * `refusal` answers for it before the router runs.
 */
export class RouteTable {
  private resources: Resource[] = [];
  /** Literal paths whose methods a less specific pattern would otherwise answer: path → Allow. */
  private shadows = new Map<string, string[]>();
  /** The same for patterns with parameters (none today; checked in order). */
  private shadowPatterns: Resource[] = [];
  /** For `routeOf`: literal paths, and the patterns by segment count, most specific first. */
  private literals = new Map<string, Resource>();
  private patternsBySize = new Map<number, Resource[]>();
  private wildcards: Resource[] = [];

  load(routes: ReadonlyArray<{ method: string; path: string }>): void {
    const byPath = new Map<string, Resource>();
    for (const route of routes) {
      const resource = byPath.get(route.path) ?? resourceOf(route.path);
      resource.methods.add(route.method.toUpperCase());
      byPath.set(route.path, resource);
    }
    this.resources = [...byPath.values()];
    this.indexForLookup();
    this.shadows.clear();
    this.shadowPatterns = [];
    for (const resource of this.resources) {
      if (!this.shadowsAnother(resource)) continue;
      if (resource.literal) this.shadows.set(resource.path, allowOf(resource.methods));
      else this.shadowPatterns.push(resource);
    }
  }

  /**
   * The methods of the resource at `path` (sorted; HEAD wherever GET is served, as the app answers
   * it); empty for an unknown path.
   */
  allowed(path: string): string[] {
    let best: Resource | undefined;
    const methods = new Set<string>();
    for (const resource of this.resources) {
      if (!resource.regex.test(path)) continue;
      const order = best === undefined ? 1 : compareSpecificity(resource.rank, best.rank);
      if (order < 0) continue;
      if (order > 0) methods.clear();
      best = order > 0 ? resource : best;
      for (const method of resource.methods) methods.add(method);
    }
    return allowOf(methods);
  }

  /**
   * For a request the router would hand to a less specific route than the path's own: the `Allow`
   * of the path's resource, when it does not serve `method`; otherwise undefined (route as usual).
   * A map lookup for literal paths, so every request can afford it.
   */
  refusal(method: string, path: string): string[] | undefined {
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const literal = this.shadows.get(trimmed);
    if (literal) return literal.includes(method) ? undefined : literal;
    for (const resource of this.shadowPatterns) {
      if (!resource.regex.test(path)) continue;
      const allow = allowOf(resource.methods);
      return allow.includes(method) ? undefined : allow;
    }
    return undefined;
  }

  /**
   * The route that answers `method` at `path`: its template as the OpenAPI document writes it
   * (`/memory/{category}/{id}`) and its well-formed-or-not `tenant_id` segment; undefined when no
   * route serves it (a 404 or 405). The telemetry names requests by it, once per request: a map
   * lookup for literal paths, a few regex tests among the patterns of the path's segment count.
   */
  routeOf(method: string, path: string): RouteMatch | undefined {
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const wanted = method === "HEAD" ? "GET" : method;
    const literal = this.literals.get(trimmed);
    if (literal) return literal.methods.has(wanted) ? literal.match : undefined;
    const segments = trimmed.split("/");
    let best: number[] | undefined;
    for (const resource of [...(this.patternsBySize.get(segments.length) ?? []), ...this.wildcards]) {
      if (best !== undefined && compareSpecificity(resource.rank, best) < 0) break;
      if (!resource.regex.test(trimmed)) continue;
      best = resource.rank;
      if (!resource.methods.has(wanted)) continue;
      const at = resource.tenantAt;
      return at < 0 ? resource.match : { template: resource.match.template, tenantId: segments[at] };
    }
    return undefined;
  }

  private indexForLookup(): void {
    this.literals.clear();
    this.patternsBySize.clear();
    const bySpecificity = [...this.resources].sort((a, b) => compareSpecificity(b.rank, a.rank));
    this.wildcards = bySpecificity.filter((r) => r.rank.includes(0));
    for (const resource of bySpecificity) {
      if (resource.literal) this.literals.set(resource.path, resource);
      else if (!resource.rank.includes(0)) {
        const size = resource.segments.length;
        this.patternsBySize.set(size, [...(this.patternsBySize.get(size) ?? []), resource]);
      }
    }
  }

  /** Whether a less specific pattern matches some path of `resource` and serves a method it does not. */
  private shadowsAnother(resource: Resource): boolean {
    return this.resources.some(
      (other) =>
        other !== resource &&
        overlaps(resource.segments, other.segments) &&
        compareSpecificity(resource.rank, other.rank) > 0 &&
        [...other.methods].some((method) => !resource.methods.has(method)),
    );
  }
}

/** A request's route, as `routeOf` names it. */
export interface RouteMatch {
  template: string;
  /** The raw `:tenant_id` segment of the path, when the route has one. */
  tenantId?: string;
}

interface Resource {
  path: string;
  match: RouteMatch;
  /** Index of the `:tenant_id` segment, -1 without one. */
  tenantAt: number;
  segments: string[];
  /** Per segment: 2 a literal, 1 a `:param`, 0 `*`. */
  rank: number[];
  literal: boolean;
  regex: RegExp;
  methods: Set<string>;
}

function resourceOf(path: string): Resource {
  const segments = path.split("/");
  const rank = segments.map((s) => (s === "*" ? 0 : s.startsWith(":") ? 1 : 2));
  return {
    path,
    match: { template: path.replace(/:([A-Za-z0-9_]+)/g, "{$1}") },
    tenantAt: segments.indexOf(":tenant_id"),
    segments,
    rank,
    literal: rank.every((r) => r === 2),
    regex: patternOf(segments),
    methods: new Set(),
  };
}

/** Sorted, unique, with HEAD beside GET (the app answers HEAD wherever it answers GET). */
function allowOf(methods: Iterable<string>): string[] {
  const out = new Set(methods);
  if (out.has("GET")) out.add("HEAD");
  return [...out].sort();
}

/** Positive when `a` is the more specific: the first segment where they differ decides. */
function compareSpecificity(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

/** Whether some path matches both patterns (`*` only ever last: it matches the rest). */
function overlaps(a: string[], b: string[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === "*" || y === "*") return true;
    if (x === undefined || y === undefined) return false;
    if (x !== y && !x.startsWith(":") && !y.startsWith(":")) return false;
  }
  return true;
}

/** `/memory/facts/:sha8` → /^\/memory\/facts\/[^/]+\/?$/ (`*` matches the rest of the path). */
function patternOf(segments: string[]): RegExp {
  const source = segments
    .map((segment) => {
      if (segment.startsWith(":")) return "[^/]+";
      if (segment === "*") return ".*";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}/?$`);
}
