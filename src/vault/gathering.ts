import type { StagedSet, Staging } from "./staging.ts";
import type { WriteSet } from "./write-set.ts";

/**
 * The write sets one piece of work issues (a delivery's events), gathered to be committed as one
 * (TenantVault.gather). Each is staged as it comes, so what the work reads next sees it (event 2 of
 * a delivery reads event 1's dedupe record, objects, entries); every writer waits for the one commit.
 */
export class Gathering {
  readonly commit: Promise<void>;
  private readonly sets: WriteSet[] = [];
  private readonly staged: StagedSet[] = [];
  private resolve: () => void = () => undefined;
  private reject: (error: unknown) => void = () => undefined;

  constructor(private readonly staging: Staging) {
    this.commit = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Writers await it; the guard only stops an unobserved rejection from crashing the process.
    this.commit.catch(() => undefined);
  }

  add(set: WriteSet): Promise<void> {
    this.sets.push(set);
    this.staged.push(this.staging.stage(set, this.commit));
    return this.commit;
  }

  /**
   * Writes what was gathered through `write`, which stages it again under its own commit (the
   * values staged here are replaced, key by key). Refused at once: nothing of it stays staged.
   */
  close(write: (sets: WriteSet[]) => Promise<void>): void {
    if (this.sets.length === 0) {
      this.resolve();
      return;
    }
    let written: Promise<void>;
    try {
      written = write(this.sets);
    } catch (error) {
      for (const staged of this.staged) this.staging.unstage(staged);
      this.reject(error);
      return;
    }
    written.then(this.resolve, this.reject);
  }
}
