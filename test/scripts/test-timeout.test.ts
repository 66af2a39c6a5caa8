import { describe, expect, test } from "bun:test";
import bunfig from "../../bunfig.toml";
import pkg from "../../package.json" with { type: "json" };
import { namesTimeout, TEST_TIMEOUT_MS } from "../helpers/default-timeout.ts";

/**
 * `bun test` and `bun run test` run with one timeout: the script passes `--timeout`, and bunfig.toml
 * preloads test/helpers/default-timeout.ts, which sets the same default for a bare `bun test`
 * (Bun 1.4.5 ignores a `[test] timeout` key) unless the command line names a timeout of its own.
 */
describe("the default test timeout", () => {
  test("the preload's timeout is the test script's", () => {
    expect(pkg.scripts.test).toBe(`bun test --timeout ${TEST_TIMEOUT_MS}`);
  });

  test("bunfig.toml preloads it for every bun test", () => {
    expect(bunfig.test.preload).toEqual(["./test/helpers/default-timeout.ts"]);
  });

  test.each([
    [["bun", "test"], false],
    [["bun", "test", "test/server.test.ts", "-t", "timeout"], false],
    [["bun", "test", "--timeout", "2000"], true],
    [["bun", "test", "--timeout=2000", "test/x.test.ts"], true],
    [["bun", "test", "--timeouts"], false],
  ] as const)("a command line %p names a timeout of its own: %p", (argv, named) => {
    expect(namesTimeout(argv)).toBe(named);
  });
});
