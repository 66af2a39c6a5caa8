/**
 * For the tests that run a docs page's example program against a live server: a harness served on
 * a loopback port for the whole file, and the check that the page includes the example verbatim.
 */
import { afterAll, beforeAll } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type LiveServer, serveHarness } from "../client/live-server.ts";
import { type Harness, startHarness } from "./harness.ts";
import { ROOT } from "./spawn.ts";

export interface LiveHarness {
  h: Harness;
  live: LiveServer;
}

/** Started before the file's tests, stopped after them; read its fields inside the tests. */
export function liveHarness(): LiveHarness {
  const env = {} as LiveHarness;
  beforeAll(async () => {
    env.h = await startHarness();
    env.live = serveHarness(env.h);
  });
  afterAll(async () => {
    await env.live.stop();
    await env.h.close();
  });
  return env;
}

/** Whether the page (a path under the repository) carries the example file as a ```ts block. */
export function carriesExample(page: string, example: string): boolean {
  const text = readFileSync(join(ROOT, page), "utf8");
  return text.includes(`\`\`\`ts\n${readFileSync(join(ROOT, example), "utf8")}\`\`\``);
}
