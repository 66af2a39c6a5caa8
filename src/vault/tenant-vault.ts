import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";

/**
 * One LMDB environment per tenant, its named databases, and their key layouts (ARCHITECTURE,
 * Storage). Index keys end in the entry id, so they are unique and lead back to the entry.
 */
export class TenantVault {
  readonly root: RootDatabase;
  readonly entries: Database<Record<string, unknown>, string>;
  readonly deadLetters: Database<Record<string, unknown>, string>;
  readonly connectorState: Database<unknown, string>;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, compression: false, maxDbs: 16 });
    this.entries = this.root.openDB({ name: "entries" });
    this.deadLetters = this.root.openDB({ name: "dead-letters" });
    this.connectorState = this.root.openDB({ name: "connector-state" });
  }

  entryCount(): number {
    return this.entries.getCount();
  }

  deadLetterCount(): number {
    return this.deadLetters.getCount();
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
