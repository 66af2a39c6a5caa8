import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDocShell } from "./helpers/doc-shell.ts";
import { jsonValues } from "./helpers/markdown.ts";
import { killHard, type ServerProcess } from "./helpers/server-process.ts";
import { ROOT } from "./helpers/spawn.ts";

/**
 * docs/entities.md runs as written: its shell block in one bash against a real server (the
 * page's address swapped for the test's), and the entity it reads is the one the page shows.
 */
const SECRET = "entities-doc-secret-at-least-32-bytes-long!!";
const dir = mkdtempSync(join(tmpdir(), "mrt-entities-doc-"));
let server: ServerProcess | undefined;

afterAll(async () => {
  if (server) await killHard(server);
  rmSync(dir, { recursive: true, force: true });
});

test("the entities page's example answers what it shows", async () => {
  const page = readFileSync(join(ROOT, "docs/entities.md"), "utf8");
  const done = await runDocShell({ page, dir, secret: SECRET, label: "entities" });
  server = done.server;
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const [answer, ...rest] = jsonValues(done.stdout);
  expect(rest).toEqual([]);
  expect(answer.entity).toEqual({ key: "acme logistics", name: "Acme Logistics", kind: "name" });
  expect(
    answer.relationships.map((r: { direction: string; predicate: string; other: string }) => r),
  ).toMatchObject([
    { direction: "incoming", predicate: "owns", other: "Hartwell Group" },
    { direction: "outgoing", predicate: "supplies", other: "Borealis Foods" },
  ]);
  expect(answer.entries.fact.map((e: { content: string }) => e.content)).toEqual([
    "The headquarters of Acme Logistics are in York",
  ]);
  expect(answer.entries.exception.map((e: { content: string }) => e.content)).toEqual([
    "Ticket from Acme Logistics: the tracking page is down",
  ]);
  expect(answer.related[0]).toEqual({
    key: "borealis foods",
    name: "Borealis Foods",
    kind: "name",
    entries: 1,
  });
  expect(answer.truncated).toBe(false);
}, 60_000);
