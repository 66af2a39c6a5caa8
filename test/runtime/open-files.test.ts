import { describe, expect, test } from "bun:test";
import {
  FILES_PER_TENANT,
  MIN_FREE_FILES,
  maxOpenTenantsFor,
  openFileLimit,
  roomForTenant,
} from "../../src/runtime/open-files.ts";

const limits = (soft: string, hard = soft) =>
  [
    "Limit                     Soft Limit           Hard Limit           Units     ",
    "Max cpu time              unlimited            unlimited            seconds   ",
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
  ].join("\n");

describe("openFileLimit", () => {
  test("reads the soft limit from /proc/self/limits text", () => {
    expect(openFileLimit(limits("1024", "4096"))).toBe(1024);
    expect(openFileLimit(limits("64"))).toBe(64);
  });

  test("unlimited and unreadable limits", () => {
    expect(openFileLimit(limits("unlimited"))).toBe(Number.MAX_SAFE_INTEGER);
    expect(openFileLimit("")).toBe(1024);
    expect(openFileLimit("Max open files  garbage")).toBe(1024);
  });

  test("this process has a real limit", () => {
    expect(openFileLimit()).toBeGreaterThan(0);
  });
});

describe("maxOpenTenantsFor", () => {
  test("keeps a quarter of the limit (32..512) and what is already open free", () => {
    expect(maxOpenTenantsFor(64, 13)).toBe(Math.floor((64 - 13 - 32) / FILES_PER_TENANT));
    expect(maxOpenTenantsFor(1024, 20)).toBe(Math.floor((1024 - 20 - 256) / FILES_PER_TENANT));
    expect(maxOpenTenantsFor(30_000, 20)).toBe(4096);
  });

  test("at least one tenant, whatever the limit", () => {
    expect(maxOpenTenantsFor(16, 14)).toBe(1);
  });
});

describe("roomForTenant", () => {
  test("refuses to open a tenant that would leave fewer than MIN_FREE_FILES descriptors", () => {
    expect(roomForTenant(100, () => 100 - FILES_PER_TENANT - MIN_FREE_FILES)).toBe(true);
    expect(roomForTenant(100, () => 100 - FILES_PER_TENANT - MIN_FREE_FILES + 1)).toBe(false);
  });

  test("without a way to count, it does not refuse", () => {
    expect(roomForTenant(10, () => undefined)).toBe(true);
  });
});
