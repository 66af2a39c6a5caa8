/**
 * The random worlds of the isolation property (tenant-isolation.test.ts): tenants with roles of
 * random permissions (category narrowing included), tokens holding random subsets of them, seeded
 * entries and dead letters, and a sequence of actions each naming a token and a target tenant by
 * index (indices wrap, so every generated value is usable and shrinks well). Also the independent
 * model of what a permission grants, against which every answer is predicted.
 */
import fc from "fast-check";
import { CATEGORIES, type Category, PLURAL_OF } from "../../src/models/category.ts";

/** `override`: retract an entry of higher trust than the token's (docs/trust-and-provenance.md). */
export type Action = "read" | "write" | "search" | "override";

/** Categories an agent can write without a reference to another entry (an outcome needs a decision). */
export const FREE_CATEGORIES = ["decision", "exception", "fact", "workflow", "relationship"] as const;

const PERMISSIONS: string[] = [
  "*",
  "memory:*",
  "tenant:read",
  ...(["read", "write", "search"] as const).flatMap((a) => [
    `memory:${a}`,
    ...CATEGORIES.map((c) => `memory:${a}:${PLURAL_OF[c]}`),
  ]),
];

export interface RoleSpec {
  name: string;
  permissions: string[];
}

export interface TenantSpec {
  roles: RoleSpec[];
  /** Tokens: each a subset of the tenant's role names (by index into `roles`). */
  tokens: number[][];
  entries: Array<{ category: (typeof FREE_CATEGORIES)[number]; words: string }>;
  /** Dead letters, by a shared index: the same index in two tenants is the same event id. */
  deadLetters: number[];
}

export type Op =
  | "read"
  | "history"
  | "list"
  | "search"
  | "write"
  | "retract"
  | "tenantHealth"
  | "listTenants"
  | "deadLetters"
  | "replay"
  | "adminRoute"
  | "operatorDeadLetters"
  | "operatorReplay";

export const OPS: Op[] = [
  "read",
  "history",
  "list",
  "search",
  "write",
  "retract",
  "tenantHealth",
  "listTenants",
  "deadLetters",
  "replay",
  "adminRoute",
  "operatorDeadLetters",
  "operatorReplay",
];

export interface ActionSpec {
  op: Op;
  /** Which token acts (wraps over every token of the world). */
  token: number;
  /** Which tenant's data is aimed at (wraps over the tenants). */
  target: number;
  /** Which entry, dead letter or admin route of the target (wraps). */
  pick: number;
  category: Category;
  /** A write naming the target tenant in its body; a search naming its category explicitly. */
  explicit: boolean;
}

const roleArb: fc.Arbitrary<Omit<RoleSpec, "name">> = fc.record({
  permissions: fc.uniqueArray(fc.constantFrom(...PERMISSIONS), { minLength: 0, maxLength: 4 }),
});

const tenantArb: fc.Arbitrary<TenantSpec> = fc
  .record({
    roles: fc.array(roleArb, { minLength: 1, maxLength: 3 }),
    tokens: fc.array(fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 3 }), {
      minLength: 1,
      maxLength: 3,
    }),
    entries: fc.array(
      fc.record({
        category: fc.constantFrom(...FREE_CATEGORIES),
        words: fc.constantFrom("renewal pricing", "churn risk", "quarterly plan", "vendor contract"),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    deadLetters: fc.uniqueArray(fc.nat(2), { minLength: 0, maxLength: 2 }),
  })
  .map((t) => ({
    ...t,
    roles: t.roles.map((r, i) => ({ name: `role-${i}`, permissions: r.permissions })),
    // Token role indices wrap over the roles that exist.
    tokens: t.tokens.map((ids) => [...new Set(ids.map((i) => i % t.roles.length))]),
  }));

const actionArb: fc.Arbitrary<ActionSpec> = fc.record({
  op: fc.constantFrom(...OPS),
  token: fc.nat(),
  target: fc.nat(),
  pick: fc.nat(),
  category: fc.constantFrom(...CATEGORIES),
  explicit: fc.boolean(),
});

export const worldArb = fc.record({
  tenants: fc.array(tenantArb, { minLength: 2, maxLength: 4 }),
  actions: fc.array(actionArb, { minLength: 4, maxLength: 16 }),
});

export type WorldSpec = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * The model of CONTRACT §4, written independently of src/auth/permissions.ts: `*` grants all,
 * `memory:*` every memory action, `memory:<action>` every category, `memory:<action>:<plural>` one.
 */
export function grantsMemory(held: readonly string[], action: Action, category: Category): boolean {
  const wanted = new Set(["*", "memory:*", `memory:${action}`, `memory:${action}:${PLURAL_OF[category]}`]);
  return held.some((p) => wanted.has(p));
}

export function grantsTenantRead(held: readonly string[]): boolean {
  return held.includes("*") || held.includes("tenant:read");
}

export function searchableCategories(held: readonly string[]): Category[] {
  return CATEGORIES.filter((c) => grantsMemory(held, "search", c));
}
