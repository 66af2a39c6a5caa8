/**
 * The TypeScript client as another project installs it: built once (`bun run client:build`),
 * packed by `npm pack` from client/, the tarball's file list checked (the client's build and
 * nothing of the repository: no .secrets, data, tests, src, TypeScript source), installed into a
 * scratch project with `npm install --offline` and an empty npm cache (its one dependency,
 * openapi-fetch, and that one's, packed from the repository's own node_modules: no registry is
 * asked), then a TypeScript program type-checked against its .d.ts and a plain ESM program run
 * against a live server under Node and under Bun.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { cleanEnv, type Finished, ROOT, run } from "../helpers/spawn.ts";
import { type LiveServer, serveHarness } from "./live-server.ts";

const CLIENT_DIR = join(ROOT, "client");
/** The runtime dependencies the tarball's install needs, packed from node_modules. */
const DEPENDENCIES = ["openapi-fetch", "openapi-typescript-helpers"];

// What a user's program does with the installed package: a write, then a search that finds it.
const PROGRAM = `import { createClient, isProblem } from "@typed-memory/client";
const memory = createClient({ baseUrl: process.env.BASE_URL, token: process.env.TOKEN });
const written = await memory.memory.write("fact", { content: process.env.CONTENT, tags: ["pkg"] });
if (written.error) throw new Error(written.error.title);
const found = await memory.search({ query: process.env.CONTENT, categories: ["fact"] });
const missing = await memory.memory.get("fact", "00000000");
console.log(JSON.stringify({
  status: written.response.status,
  found: found.data.results.some((r) => r.entry.id === written.data.id),
  missing: missing.response.status,
  problem: isProblem(missing.error),
}));
`;

// A TypeScript user's program, type-checked against the installed .d.ts (through `exports.types`).
const TYPED_PROGRAM = `import { createClient, type FactWritten, type Problem } from "@typed-memory/client";
const memory = createClient({ baseUrl: "http://127.0.0.1:8080", token: () => "t" });
const { data, error } = await memory.memory.write("fact", { content: "Acme renews in March" });
const written: FactWritten | undefined = data;
const problem: Problem | undefined = error;
// @ts-expect-error: "facts" is a path, not a category
await memory.memory.write("facts", { content: "x" });
// @ts-expect-error: a fact's content is a string
await memory.memory.write("fact", { content: 1 });
export { problem, written };
`;
const TYPED_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: [],
    strict: true,
    noEmit: true,
  },
  files: ["program.ts"],
};

let work: string;
let h: Harness;
let live: LiveServer;
let packed: { files: string[]; tarball: string };
let scratch: string;

function ok(step: string, result: Finished): Finished {
  if (result.code !== 0) throw new Error(`${step} exited ${result.code}: ${result.stderr || result.stdout}`);
  return result;
}

/** `npm pack <dir>` into the work directory: the tarball's path and the files it lists. */
async function npmPack(dir: string): Promise<{ files: string[]; tarball: string }> {
  const out = ok(
    `npm pack ${dir}`,
    await run(
      ["npm", "pack", "--json", "--ignore-scripts", "--pack-destination", work, dir],
      npmEnv(),
      60_000,
    ),
  );
  const [info] = JSON.parse(out.stdout) as [{ filename: string; files: { path: string }[] }];
  return { files: info.files.map((f) => f.path).sort(), tarball: join(work, info.filename) };
}

/** npm with a cache of its own (empty: nothing comes from a registry) and no update notices. */
function npmEnv(): Record<string, string> {
  return cleanEnv({
    npm_config_cache: join(work, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mrt-client-pack-"));
  ok("bun run client:build", await run([process.execPath, "run", "client:build"], cleanEnv({}), 60_000));
  packed = await npmPack(CLIENT_DIR);
  const deps = [];
  for (const name of DEPENDENCIES) deps.push((await npmPack(join(ROOT, "node_modules", name))).tarball);
  scratch = join(work, "app");
  mkdirSync(scratch);
  writeFileSync(
    join(scratch, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  writeFileSync(join(scratch, "program.ts"), TYPED_PROGRAM);
  writeFileSync(join(scratch, "tsconfig.json"), JSON.stringify(TYPED_TSCONFIG));
  writeFileSync(join(scratch, "program.mjs"), PROGRAM);
  ok(
    "npm install --offline",
    await run(
      ["npm", "install", "--offline", "--ignore-scripts", packed.tarball, ...deps],
      npmEnv(),
      60_000,
      scratch,
    ),
  );
  h = await startHarness();
  live = serveHarness(h);
}, 120_000);

afterAll(async () => {
  await live?.stop();
  await h?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the packed client", () => {
  test("the tarball holds the client's build, its package.json and README, nothing else", () => {
    const outside = packed.files.filter(
      (f) => !(f === "package.json" || f === "README.md" || /^dist\/[\w-]+\.(js|d\.ts)$/.test(f)),
    );
    expect(outside).toEqual([]);
    expect(packed.files).toContain("dist/index.js");
    expect(packed.files).toContain("dist/index.d.ts");
    expect(packed.files).toContain("dist/openapi-types.d.ts");
    for (const f of packed.files) expect(f).not.toMatch(/secrets|^data\/|test|^src\/|node_modules|\.env/);
  });

  test("installs offline into a scratch project with only the client and its dependency", () => {
    const installed = readdirSync(join(scratch, "node_modules"))
      .filter((name) => !name.startsWith("."))
      .sort();
    expect(installed).toEqual(["@typed-memory", ...DEPENDENCIES].sort());
    const client = readdirSync(join(scratch, "node_modules", "@typed-memory", "client")).sort();
    expect(client).toEqual(["README.md", "dist", "package.json"]);
  });

  test("a TypeScript program type-checks against the installed .d.ts; wrong calls do not", async () => {
    const tsc = join(ROOT, "node_modules", ".bin", "tsc");
    const result = await run([tsc, "-p", "tsconfig.json"], cleanEnv({}), 60_000, scratch);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  const runtimes: [string, string][] = [
    ["node", "node"],
    ["bun", process.execPath],
  ];
  for (const [label, bin] of runtimes) {
    test(`a program under ${label} writes a fact and finds it by search; a miss is a problem`, async () => {
      const { token } = await h.createTenant(`Packed ${label}`);
      const content = `Globex renews its ${label} contract in June`;
      const result = ok(
        `${label} program.mjs`,
        await run(
          [bin, "program.mjs"],
          cleanEnv({ BASE_URL: live.base, TOKEN: token, CONTENT: content }),
          30_000,
          scratch,
        ),
      );
      expect(JSON.parse(result.stdout.trim())).toEqual({
        status: 201,
        found: true,
        missing: 404,
        problem: true,
      });
    });
  }
});
