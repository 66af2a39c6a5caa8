/**
 * Runs the full-disk scenario (disk-full-scenario.test.ts) in a `bun test` process of its own: it
 * lowers its own process's file-size limit, which must not reach the files of the other suites
 * running in this one.
 */
import { expect, test } from "bun:test";
import { hasPrlimit } from "../helpers/file-size-limit.ts";
import { cleanEnv, run } from "../helpers/spawn.ts";

test.skipIf(!hasPrlimit())(
  "a full disk: every write path 507, nothing of a refused request kept, recovery without a restart",
  async () => {
    const done = await run(
      [process.execPath, "test", "./test/storage/disk-full-scenario.test.ts"],
      cleanEnv({ MRT_DISK_FULL_SCENARIO: "1" }),
      50_000,
    );
    const output = done.stdout + done.stderr;
    const summary = (label: string) =>
      Number(new RegExp(`^\\s*(\\d+) ${label}$`, "m").exec(output)?.[1] ?? -1);
    expect({ code: done.code, pass: summary("pass"), fail: summary("fail") }, output.slice(-4000)).toEqual({
      code: 0,
      pass: 4,
      fail: 0,
    });
  },
  60_000,
);
