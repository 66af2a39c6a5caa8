/**
 * The repository's own source as a graph of imports, for the architecture test: every `.ts` file
 * under the given roots, its text, and what each import names (type imports included, since a
 * type cycle is still a cycle a reader has to untangle). Pure reading: nothing is executed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const REPO = resolve(import.meta.dir, "../..");

export interface SourceFile {
  /** Relative to the repository, with `/`: `src/models/entry.ts`. */
  path: string;
  text: string;
  imports: Import[];
}

export interface Import {
  /** As written: `../models/entry.ts`, `elysia`, `node:fs`. */
  specifier: string;
  /** The repository file it resolves to (relative, like `path`), or undefined for a package. */
  target?: string;
}

/** Every `.ts` file under `roots` (relative to the repository), sorted by path. */
export function sourceFiles(roots: string[]): SourceFile[] {
  const paths = roots.flatMap((root) => walk(join(REPO, root))).sort();
  return paths.map((abs) => {
    const text = readFileSync(abs, "utf8");
    return {
      path: rel(abs),
      text,
      imports: specifiersOf(text).map((s) => ({ specifier: s, target: resolveIn(abs, s) })),
    };
  });
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name);
    // A build's output (client/dist, `bun run client:build`) is not source.
    if (statSync(abs).isDirectory()) return name === "dist" || name === "node_modules" ? [] : walk(abs);
    return abs.endsWith(".ts") ? [abs] : [];
  });
}

/**
 * The module specifiers of a file's import and export-from declarations, `import type` and
 * `export type` included. The code is Biome-formatted, so a declaration starts a line; its clause
 * (names in braces, possibly over several lines) never holds a quote or a semicolon.
 */
export function specifiersOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?:[^;"'`]*?\s+from\s+)?["']([^"']+)["']/gm))
    found.push(m[1]!);
  return found;
}

function resolveIn(fromAbs: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(fromAbs), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return rel(candidate);
  }
  return rel(base);
}

function rel(abs: string): string {
  return relative(REPO, abs).split("\\").join("/");
}

/**
 * Every import cycle, each as a path that returns to its start (`a → b → a`): one per strongly
 * connected component of the graph (Tarjan), walked from its first file.
 */
export function cyclesOf(edges: Map<string, string[]>): string[][] {
  const components = stronglyConnected(edges).filter((c) => c.length > 1 || selfImport(edges, c[0]!));
  return components.map((c) => cycleWithin(edges, new Set(c), [...c].sort()[0]!));
}

function selfImport(edges: Map<string, string[]>, node: string): boolean {
  return (edges.get(node) ?? []).includes(node);
}

function stronglyConnected(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    out.push(component);
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** A shortest way from `start` back to itself inside one component (breadth first). */
function cycleWithin(edges: Map<string, string[]>, component: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) return [...pathTo(cameFrom, start, v), start];
      if (cameFrom.has(w)) continue;
      cameFrom.set(w, v);
      queue.push(w);
    }
  }
  return [start];
}

function pathTo(cameFrom: Map<string, string>, start: string, end: string): string[] {
  const path = [end];
  while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
  return path;
}
