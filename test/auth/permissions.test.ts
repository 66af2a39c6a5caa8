import { describe, expect, test } from "bun:test";
import { allowedCategories, anyGrants, grants, memoryPermission } from "../../src/auth/permissions.ts";
import { CATEGORIES } from "../../src/models/category.ts";

describe("grants", () => {
  test("an exact permission grants itself", () => {
    expect(grants("tenant:read", "tenant:read")).toBe(true);
    expect(grants("memory:read", "memory:read")).toBe(true);
    expect(grants("memory:write:decisions", "memory:write:decisions")).toBe(true);
  });

  test("`*` grants everything", () => {
    for (const needed of ["tenant:read", "memory:read", "memory:write:facts", "memory:search", "admin"]) {
      expect(grants("*", needed)).toBe(true);
    }
  });

  test("`memory:*` grants every memory permission and nothing else", () => {
    expect(grants("memory:*", "memory:read")).toBe(true);
    expect(grants("memory:*", "memory:write")).toBe(true);
    expect(grants("memory:*", "memory:write:decisions")).toBe(true);
    expect(grants("memory:*", "memory:search:facts")).toBe(true);
    expect(grants("memory:*", "tenant:read")).toBe(false);
    expect(grants("memory:*", "admin")).toBe(false);
  });

  test("a broad permission grants its narrowings, never the reverse", () => {
    expect(grants("memory:write", "memory:write:decisions")).toBe(true);
    expect(grants("memory:write:decisions", "memory:write")).toBe(false);
    expect(grants("memory:write:decisions", "memory:write:facts")).toBe(false);
    expect(grants("memory:write:decisions", "memory:read:decisions")).toBe(false);
  });

  test("different actions and areas do not grant each other", () => {
    expect(grants("memory:read", "memory:write")).toBe(false);
    expect(grants("memory:read", "memory:search")).toBe(false);
    expect(grants("memory:read", "tenant:read")).toBe(false);
    expect(grants("tenant:read", "memory:read")).toBe(false);
  });

  test("segments compare whole, not by prefix", () => {
    expect(grants("memory:write:decision", "memory:write:decisions")).toBe(false);
    expect(grants("memory:writer", "memory:write")).toBe(false);
    expect(grants("memory:rea", "memory:read")).toBe(false);
    expect(grants("memory:read", "memory:readx")).toBe(false);
  });

  test("anyGrants: one held permission suffices; none held grants nothing", () => {
    expect(anyGrants(["memory:read", "tenant:read"], "tenant:read")).toBe(true);
    expect(anyGrants(["memory:read"], "tenant:read")).toBe(false);
    expect(anyGrants([], "memory:read")).toBe(false);
  });
});

describe("memoryPermission", () => {
  test("uses the plural category as the narrowing segment", () => {
    expect(memoryPermission("write")).toBe("memory:write");
    expect(memoryPermission("write", "decision")).toBe("memory:write:decisions");
    expect(memoryPermission("search", "relationship")).toBe("memory:search:relationships");
  });
});

describe("allowedCategories", () => {
  test("wildcards and unnarrowed permissions allow every category", () => {
    expect(allowedCategories(["*"], "search")).toEqual([...CATEGORIES]);
    expect(allowedCategories(["memory:*"], "write")).toEqual([...CATEGORIES]);
    expect(allowedCategories(["memory:read"], "read")).toEqual([...CATEGORIES]);
  });

  test("narrowed permissions allow only their categories, for their action only", () => {
    const held = ["memory:write:decisions", "memory:write:facts", "memory:read:outcomes"];
    expect(allowedCategories(held, "write")).toEqual(["decision", "fact"]);
    expect(allowedCategories(held, "read")).toEqual(["outcome"]);
    expect(allowedCategories(held, "search")).toEqual([]);
  });

  test("no memory permission allows nothing", () => {
    expect(allowedCategories([], "read")).toEqual([]);
    expect(allowedCategories(["tenant:read"], "read")).toEqual([]);
  });
});
