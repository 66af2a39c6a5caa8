/**
 * The layering rules of the source, checked on every import under src/ and actors/ (type imports
 * included). Each rule is one test over `files`; a new rule (a file-size limit, say) is one more.
 */
import { describe, expect, test } from "bun:test";
import { cyclesOf, type SourceFile, sourceFiles, specifiersOf } from "./helpers/source-graph.ts";
import { directVaultWrites } from "./helpers/vault-writes.ts";

const files = sourceFiles(["src", "actors"]);

/** Each file's imports of other repository files. */
const edges = new Map(files.map((f) => [f.path, f.imports.flatMap((i) => (i.target ? [i.target] : []))]));

/** A file's lines (a last line without its newline counts too). */
const lineCount = (text: string) =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** Lines of code that assign to a prototype (`X.prototype.m = …`, `X.prototype["m"] = …`), comments aside. */
function prototypeAssignments(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => /\.prototype(\.[\w$]+|\[[^\]]+\])\s*(=(?!=)|\+=|\|\|=|\?\?=)/.test(line));
}

/** The imports of `under/**` that `allowed` refuses, as `file → specifier` lines. */
function importsBreaking(under: string, allowed: (i: SourceFile["imports"][number]) => boolean): string[] {
  return files
    .filter((f) => f.path.startsWith(under))
    .flatMap((f) => f.imports.filter((i) => !allowed(i)).map((i) => `${f.path} → ${i.specifier}`));
}

describe("the import scanner", () => {
  test("sees type imports, multi-line clauses, export-from and side-effect imports, not comments or strings", () => {
    const text = [
      'import type { A } from "./a.ts";',
      "import {",
      "  b,",
      "  type C,",
      '} from "./b.ts";',
      'export { d } from "./d.ts";',
      'export type { E } from "./e.ts";',
      'import "./side.ts";',
      '// import x from "./commented.ts";',
      'const s = "import y from \\"./quoted.ts\\"";',
      "export const from = 1;",
    ].join("\n");
    expect(specifiersOf(text)).toEqual(["./a.ts", "./b.ts", "./d.ts", "./e.ts", "./side.ts"]);
  });

  test("reads the whole source, type imports included", () => {
    expect(files.length).toBeGreaterThan(100);
    // A type-only import: the HTTP kit takes the auth plugin's type.
    expect(edges.get("src/http/http-kit.ts")).toContain("src/http/auth-plugin.ts");
  });

  test("reports a cycle as the path that closes it", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(cyclesOf(graph)).toEqual([
      ["a", "b", "c", "a"],
      ["e", "e"],
    ]);
  });
});

describe("the size and patch scanners", () => {
  test("count a file's lines, its last one with or without a newline", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("")).toBe(0);
  });

  test("see a prototype assignment in code, not a comparison, a read or a comment", () => {
    const text = [
      "TenantVault.prototype.write = patched;",
      'Foo.prototype["bar"] = 1;',
      "if (Foo.prototype.bar === x) {}",
      "const m = Foo.prototype.bar;",
      "// TenantVault.prototype.write = patched (what the changelog once did)",
      " * Foo.prototype.bar = 1",
    ].join("\n");
    expect(prototypeAssignments(text)).toEqual([
      "TenantVault.prototype.write = patched;",
      'Foo.prototype["bar"] = 1;',
    ]);
  });
});

describe("the vault-write scanner", () => {
  test("sees a put, a remove or a transaction on vault tables and writable handles, not other stores or comments", () => {
    const writes = [
      "return vault.transaction(() => {",
      "subscriptions.put(stored.id, stored);",
      "deliveries.remove(key);",
      "void meta.put(CHECKED_KEY, 1).catch(() => undefined);",
      "h.embeddings.put(seq, record);",
      'return vault.tablesOf("vault").meta.remove(CHECKED_KEY);',
      "await this.vault.childTransaction(() => clearImported(h));",
      "for (const db of all) db.clearSync();",
      'import type { Database } from "lmdb";',
      'const dbs = (): TablesOf<"outbound"> => x;',
    ];
    const others = [
      "await this.objects.put({ name }, stream);",
      "await state.put(MAIL_STATE.watch, state.watch);",
      "this.held.clear();",
      "// subscriptions.put(id, next) was the old way",
      " * vault.transaction(() => …)",
    ];
    expect(directVaultWrites([...writes, ...others].join("\n"))).toEqual(writes);
  });
});

describe("architecture", () => {
  test("a tenant vault changes through its write sets: no put, remove or transaction on its tables outside src/vault/", () => {
    const writes = files
      .filter((f) => !f.path.startsWith("src/vault/"))
      .flatMap((f) => directVaultWrites(f.text).map((line) => `${f.path}: ${line}`));
    expect(writes).toEqual([]);
  });

  test("no import cycle, type imports included", () => {
    const cycles = cyclesOf(edges).map((c) => c.join(" → "));
    expect(cycles).toEqual([]);
  });

  test("src/models is the ground floor: it imports only other models and packages", () => {
    const outside = importsBreaking("src/models/", (i) => !i.target || i.target.startsWith("src/models/"));
    expect(outside).toEqual([]);
  });

  test("no Deps bag: no src/routes/ folder and no interface or type named Deps", () => {
    expect(files.filter((f) => f.path.startsWith("src/routes/")).map((f) => f.path)).toEqual([]);
    const bags = files.filter((f) => /\b(interface|type)\s+Deps\b/.test(f.text)).map((f) => f.path);
    expect(bags).toEqual([]);
  });

  test("src/ holds only its entry points at its root: index.ts serves, lib.ts embeds", () => {
    const atRoot = files.filter((f) => /^src\/[^/]+\.ts$/.test(f.path)).map((f) => f.path);
    expect(atRoot.sort()).toEqual(["src/index.ts", "src/lib.ts"]);
  });

  test("routes files import no actor protocol and ask no actor", () => {
    // Feature modules' routes (`src/<feature>/routes.ts`, `…/<name>-routes.ts`): a route
    // validates, authorises and calls its service; the service asks actors.
    const routeFiles = files.filter((f) => /^src\/.+\/(routes|[\w-]+-routes)\.ts$/.test(f.path));
    expect(routeFiles.map((f) => f.path)).toContain("src/memory/routes.ts");
    const reached = routeFiles.flatMap((f) =>
      f.imports
        .filter(
          (i) =>
            i.target?.startsWith("src/protocols/") ||
            i.target?.startsWith("actors/") ||
            i.target?.startsWith("src/vault/") ||
            /^(node:)?fs(\/|$)/.test(i.specifier),
        )
        .map((i) => `${f.path} → ${i.specifier}`),
    );
    const asks = routeFiles.flatMap((f) =>
      f.text
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && line.includes(".ask("))
        .map((line) => `${f.path}: ${line.trim()}`),
    );
    expect({ reached, asks }).toEqual({ reached: [], asks: [] });
  });

  test("storage primitives sit below the domain: src/vault imports no src/memory and no actors", () => {
    const above = importsBreaking(
      "src/vault/",
      (i) => !i.target?.startsWith("src/memory/") && !i.target?.startsWith("actors/"),
    );
    expect(above).toEqual([]);
  });

  test("telemetry is a port: src/telemetry imports only its own files, src/models and packages", () => {
    const above = importsBreaking(
      "src/telemetry/",
      (i) => !i.target || i.target.startsWith("src/telemetry/") || i.target.startsWith("src/models/"),
    );
    expect(above).toEqual([]);
  });

  test("the embedders sit below search: src/embedding imports nothing from src/search", () => {
    const above = importsBreaking("src/embedding/", (i) => !i.target?.startsWith("src/search/"));
    expect(above).toEqual([]);
  });

  test("only the composition root imports actors/: the rest of src/ reaches them by message", () => {
    const reached = files
      .filter((f) => f.path.startsWith("src/") && !f.path.startsWith("src/compose/"))
      .flatMap((f) =>
        f.imports.filter((i) => i.target?.startsWith("actors/")).map((i) => `${f.path} → ${i.specifier}`),
      );
    expect(reached).toEqual([]);
  });

  test("no file under src/ or actors/ is over 450 lines", () => {
    const long = files.filter((f) => lineCount(f.text) > 450).map((f) => `${f.path}: ${lineCount(f.text)}`);
    expect(long).toEqual([]);
  });

  test("the composition root reads in a page or two: each file of src/compose/ is at most 200 lines", () => {
    const compose = files.filter((f) => f.path.startsWith("src/compose/"));
    expect(compose.map((f) => f.path)).toContain("src/compose/compose.ts");
    const long = compose.filter((f) => lineCount(f.text) > 200).map((f) => `${f.path}: ${lineCount(f.text)}`);
    expect(long).toEqual([]);
  });

  test("ports, not patches: nothing under src/ or actors/ assigns to a prototype", () => {
    const patches = files.flatMap((f) =>
      prototypeAssignments(f.text).map((line) => `${f.path}: ${line.trim()}`),
    );
    expect(patches).toEqual([]);
  });
});
