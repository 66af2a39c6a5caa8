/**
 * `bun run demo` (scripts/demo.ts), as an operator runs it: a real process writes a few days of
 * history with its backdated clock and serves; the dashboard it serves then shows a column for
 * every day of that history, and the tenants' pages the dead letters and the denial it made.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cleanEnv } from "../helpers/spawn.ts";

const DAYS = 4;
const ROOT = join(import.meta.dir, "..", "..");

let demo: Subprocess<"ignore", "pipe", "pipe">;
let dir: string;
let printed: Record<string, string>;

/** Reads the demo's stdout until it has printed the line of each key (bounded by the test's timeout). */
async function linesOf(stdout: ReadableStream<Uint8Array>, keys: string[]): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stdout) {
    text += decoder.decode(chunk, { stream: true });
    for (const line of text.split("\n"))
      for (const key of keys) if (line.startsWith(`${key}: `)) found[key] = line.slice(key.length + 2).trim();
    if (keys.every((key) => found[key] !== undefined)) return found;
  }
  const stderr = await new Response(demo.stderr).text();
  throw new Error(`the demo stopped before printing ${keys.join(", ")}:\n${text}\n${stderr}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mrt-demo-"));
  demo = Bun.spawn(
    ["bun", "run", "demo", "--port", "0", "--days", String(DAYS), "--data-dir", join(dir, "data")],
    {
      cwd: ROOT,
      // Not this process's variables: other test files set some (PORT, MEMORY_RUNTIME_*).
      env: cleanEnv({}),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  printed = await linesOf(demo.stdout, ["history", "dashboard", "admin token"]);
});

afterAll(async () => {
  demo?.kill("SIGTERM");
  await demo?.exited;
  rmSync(dir, { recursive: true, force: true });
});

/** `day=entries` of each day the demo wrote, oldest first. */
function historyDays(): string[] {
  return printed.history!.replace(/ \(.*\)$/, "").split(" ");
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${printed["admin token"]}` } });
  return { status: res.status, text: await res.text() };
}

describe("bun run demo", () => {
  test("prints the history it wrote: one line per day, entries on each", () => {
    const days = historyDays();
    expect(days).toHaveLength(DAYS);
    for (const day of days) expect(day).toMatch(/^\d{4}-\d{2}-\d{2}=[1-9]\d*$/);
  });

  test("the dashboard's writes chart has a column on every day of the history", async () => {
    const { status, text } = await get(printed.dashboard!);
    expect(status).toBe(200);
    const days = historyDays().map((d) => d.slice(0, 10));
    for (const day of days) {
      const column = text.match(new RegExp(`<g class="column" data-label="${day}">([\\s\\S]*?)</g>`))?.[1];
      expect({ day, written: (column?.match(/<rect /g) ?? []).length > 0 }).toEqual({ day, written: true });
    }
    // Days before the history have nothing.
    const before = new Date(Date.parse(`${days[0]}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(text).toContain(`<g class="column" data-label="${before}"></g>`);
    expect(text.match(/<a href="\/admin\/dashboard\/tenants\//g)).toHaveLength(2);
  });

  test("each tenant's page: an open and a replayed dead letter, the bridge active, a denial", async () => {
    const overview = (await get(printed.dashboard!)).text;
    const links = [...overview.matchAll(/<a href="(\/admin\/dashboard\/tenants\/[0-9A-Z]{26})">/g)].map(
      (m) => m[1],
    );
    expect(links).toHaveLength(2);
    for (const link of links) {
      const { status, text } = await get(new URL(link!, printed.dashboard!).href);
      expect(status).toBe(200);
      expect(text).toContain("Dead letters (1 open;");
      expect(text.match(/<tr data-dead-letter="[^"]+" class="status-replayed">/g)).toHaveLength(1);
      expect(text).toContain(
        '<tr data-connector="messaging"><td>Messaging bridge</td><td class="state-active">',
      );
      expect(text).toContain("<code>GET /admin/tenants</code>");
    }
  });
});

describe("bun run demo on a temporary directory", () => {
  test("SIGHUP (a closed terminal) stops it and removes its data", async () => {
    // The script itself: `bun run demo` puts a package-script process in between, which a SIGHUP
    // ends before the demo has stopped.
    const hup = Bun.spawn(["bun", "run", "scripts/demo.ts", "--port", "0", "--days", "1"], {
      cwd: ROOT,
      env: cleanEnv({}),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of hup.stdout) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes("\nadmin token: ")) break;
    }
    const data = text.match(/ history for \d+ tenants in (\S+)\n/)?.[1];
    expect(data).toBeString();
    expect(existsSync(data!)).toBe(true);
    // One answer from it first: its event loop has turned since it installed its handlers.
    const dashboard = text.match(/\ndashboard: (\S+)\n/)?.[1];
    expect((await fetch(dashboard!)).status).toBe(401);
    hup.kill("SIGHUP");
    expect(await hup.exited).toBe(0);
    expect(existsSync(data!)).toBe(false);
  });
});
