/**
 * The scale bench's memory cgroup (bench/memory-limit.ts): the environment's limit is checked, the
 * kernel's `key value` files are read, and a real process admitted to a real cgroup is charged
 * there (this machine and CI run as root with a memory controller; elsewhere that case is skipped
 * with the reason printed).
 */
import { describe, expect, test } from "bun:test";
import { keyed, MemoryLimit } from "../../bench/memory-limit.ts";

function cgroupsHere(): boolean {
  try {
    MemoryLimit.fromEnv({ BENCH_SERVICE_MEMORY_LIMIT_MB: "256" })?.remove();
    return true;
  } catch (error) {
    console.log(`memory cgroup case skipped: ${(error as Error).message}`);
    return false;
  }
}

describe("the scale bench's memory limit", () => {
  test("no variable, no cgroup; a limit that is not a whole number of MB (at least 64) is refused", () => {
    expect(MemoryLimit.fromEnv({})).toBeUndefined();
    for (const bad of ["lots", "1.5", "10", "-2048"])
      expect(() => MemoryLimit.fromEnv({ BENCH_SERVICE_MEMORY_LIMIT_MB: bad })).toThrow(
        /a whole number of MB, at least 64/,
      );
  });

  test("memory.stat, memory.events and memory.oom_control lines read as numbers by key", () => {
    expect(keyed("cache 4096\nrss 8192\n oom_kill 2\nunder_oom 0\nname text\n\n")).toEqual({
      cache: 4096,
      rss: 8192,
      oom_kill: 2,
      under_oom: 0,
    });
  });

  test.if(cgroupsHere())("a process admitted to the cgroup is charged there, under the limit", async () => {
    const limit = MemoryLimit.fromEnv({ BENCH_SERVICE_MEMORY_LIMIT_MB: "256" })!;
    // A child that waits for a line on stdin, then touches 64 MB and exits.
    const child = Bun.spawn(
      [
        "bun",
        "-e",
        "for await (const _ of console) { const b = new Uint8Array(64 << 20); b.fill(1); console.log(b[7]); break; }",
      ],
      { stdin: "pipe", stdout: "pipe" },
    );
    try {
      limit.admit(child.pid);
      child.stdin.write("go\n");
      await child.stdin.end();
      expect((await new Response(child.stdout).text()).trim()).toBe("1");
      expect(await child.exited).toBe(0);
      const figures = limit.figures();
      expect(figures.limit_mb).toBe(256);
      expect(figures.oom_kills).toBe(0);
      expect(figures.peak_mb).toBeGreaterThanOrEqual(64);
      expect(figures.peak_mb).toBeLessThanOrEqual(256);
    } finally {
      child.kill();
      await child.exited;
      limit.remove();
    }
  });
});
