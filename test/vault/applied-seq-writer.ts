/**
 * Child process of system-store-applied.test.ts: applies numbered commands to a system store the
 * way the cluster's system replica does (the command's puts and `markApplied(seq)` in one
 * synchronous run, then both awaited), from the store's own applied sequence on, until killed.
 * Each command records one admin event naming its sequence; every fifth also creates a tenant.
 */
import { SystemStore } from "../../src/vault/system-store.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: applied-seq-writer.ts <data dir>");
const store = new SystemStore(dir, 1000);
const from = store.appliedSeq() + 1;
console.log(`from ${from}`);
// Bounded: the parent kills it long before.
for (let seq = from; seq < from + 1_000_000; seq++) {
  const effects: Promise<unknown>[] = [
    store.recordAdminEvent({
      at: new Date(Date.UTC(2026, 10, 21)).toISOString(),
      action: "test.command",
      sub: "writer",
      tenant_id: null,
      target: null,
      details: { seq },
    }),
  ];
  if (seq % 5 === 0) {
    const tenant_id = `T${String(seq).padStart(25, "0")}`;
    effects.push(
      store.createTenant({
        tenant_id,
        name: `tenant ${seq}`,
        status: "active",
        created_at: "2026-11-21T00:00:00Z",
      }),
    );
  }
  effects.push(store.markApplied(seq));
  await Promise.all(effects);
  if (seq % 50 === 0) console.log(`applied ${seq}`);
}
