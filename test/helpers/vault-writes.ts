import { TABLES } from "../../src/vault/tables.ts";

/** lmdb-js's transactions and its writes that no other store of the code names the same. */
const LMDB_ONLY =
  /\.\s*(transaction|childTransaction|transactionSync|transactionAsync|putSync|removeSync|clearSync|clearAsync|ifNoExists|ifVersion|dropSync)\s*\(/;

/**
 * Every vault table's name in code (`subscriptions`, `meta`, …): a put or remove on one is a write.
 * A field of the class itself (`this.objects`, a NATS object store) is another store's.
 */
const TABLE_NAMES = [...new Set(Object.values(TABLES).flatMap((group) => Object.keys(group)))];
const TABLE_WRITE = new RegExp(
  `(?<!this\\.)\\b(${TABLE_NAMES.join("|")})\\s*\\.\\s*(put|remove|drop)\\s*\\(`,
);

/** `vault.tablesOf("x").meta.put(…)` and the like, whatever the table. */
const VIEW_WRITE = /tablesOf\([^)]*\)\s*\.\s*\w+\s*\.\s*(put|remove|drop)\s*\(/;

/** What hands out writable tables or a raw environment: the vault's alone. */
const WRITABLE = /\b(TablesOf|openGroup|openEnvironment)\b|from\s+["']lmdb["']/;

/**
 * The lines of code (comments aside) that write a tenant vault's tables directly, or reach for a
 * writable handle: outside src/vault/, every change is a write set or a named vault method.
 */
export function directVaultWrites(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter(
      (line) =>
        LMDB_ONLY.test(line) || TABLE_WRITE.test(line) || VIEW_WRITE.test(line) || WRITABLE.test(line),
    )
    .map((line) => line.trim());
}
