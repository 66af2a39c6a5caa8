import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { cleanEnv, ROOT } from "../helpers/spawn.ts";

/**
 * package.json's `files` list decides what installing the package from a clone copies: never the
 * JWT secret (.secrets/), the data directory (data/) or .git, whatever the ignore files say. npm
 * packs a copy of the repository that carries all three (and no .gitignore, so `files` alone must
 * keep them out); `npm pack --dry-run` only reads local files.
 */
const NEVER_COPIED = new Set(["node_modules", ".git", ".tmp", "data", ".secrets", "test-artifacts"]);
const dir = mkdtempSync(join(tmpdir(), "mrt-pack-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function copyOfRepository(): string {
  const copy = join(dir, "repo");
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (from) => {
      const top = relative(ROOT, from).split(sep)[0] ?? "";
      return !NEVER_COPIED.has(top) && top !== ".gitignore";
    },
  });
  const plant = (path: string, text: string) => {
    mkdirSync(join(copy, path, ".."), { recursive: true });
    writeFileSync(join(copy, path), text);
  };
  plant(".secrets/jwt-secret", "planted-secret-planted-secret-planted-secret");
  plant("data/tenants/01JDB2X6J3KQ5W8Z3M4N7P9R2S/data.mdb", "planted vault");
  plant("data/system/data.mdb", "planted system store");
  plant(".git/config", "[core]\n");
  return copy;
}

test("npm pack takes src and the docs, never .secrets, data, .git or the tests", async () => {
  const copy = copyOfRepository();
  const proc = Bun.spawn(["npm", "pack", "--dry-run", "--json", "--ignore-scripts", "--offline"], {
    cwd: copy,
    env: cleanEnv({ npm_config_update_notifier: "false", npm_config_cache: join(dir, "npm-cache") }),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
  const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  const paths = packed!.files.map((f) => f.path);
  const forbidden = paths.filter((p) => /^(\.secrets|data|\.git|test|\.tmp)(\/|$)/.test(p));
  expect(forbidden).toEqual([]);
  expect(paths).toContain("src/lib.ts");
  expect(paths).toContain("package.json");
  expect(paths).toContain("README.md");
  expect(paths).toContain("docs/examples/embed-bridge.ts");
}, 60_000);
