import { InsufficientStorage } from "../errors/domain-errors.ts";

/**
 * Storage faults: what a write that could not be stored looks like, and how it is answered (507
 * `insufficient_storage`, never a 500). The causes come from LMDB's native code (numeric codes) or
 * from Node's fs (string codes):
 * - MDB_MAP_FULL / MDB_TXN_FULL: LMDB's map or a transaction's page list is full;
 * - ENOSPC / EDQUOT: the disk or the user's quota is full; EFBIG: a file reached the process's
 *   file-size limit (RLIMIT_FSIZE);
 * - EIO from a commit: LMDB reports a short write ("filesystem full?") as EIO.
 */
const MDB_MAP_FULL = -30792;
const MDB_TXN_FULL = -30788;
const FULL_ERRNOS = new Set([28 /* ENOSPC */, 122 /* EDQUOT */, 27 /* EFBIG */, 5 /* EIO */]);
const FULL_CODES = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EIO"]);
const FULL_MESSAGE = /MDB_MAP_FULL|MDB_TXN_FULL|no space left|quota exceeded|file too large/i;

/** Whether `error` (already unwrapped, see storageFault) says the storage is full. */
export function isStorageFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "number")
    return code === MDB_MAP_FULL || code === MDB_TXN_FULL || FULL_ERRNOS.has(code);
  if (typeof code === "string") return FULL_CODES.has(code);
  return FULL_MESSAGE.test(error.message);
}

/** What a failed commit is answered with; the detail names no file, path or key. */
export function storageFull(): InsufficientStorage {
  return new InsufficientStorage(
    "storage is full: nothing of this request was written; retry once space is freed",
  );
}

/**
 * lmdb-js rejects the writes of a failed commit with a wrapper ("Commit failed (see commitError for
 * details)") whose `commitError` promise holds LMDB's error. That promise is already rejected when
 * the writes' rejections are handled; a macrotask bounds the wait should it ever not be.
 */
async function causeOf(error: unknown): Promise<unknown> {
  const commitError = (error as { commitError?: unknown } | undefined)?.commitError;
  if (!(commitError instanceof Promise)) return error;
  const later = new Promise<unknown>((resolve) => setImmediate(() => resolve(error)));
  return Promise.race([
    commitError.then(
      () => error,
      (cause: unknown) => cause,
    ),
    later,
  ]);
}

/** Rejects with InsufficientStorage when `error` is a storage fault, else with `error` itself. */
export async function storageFault(error: unknown): Promise<never> {
  throw isStorageFull(await causeOf(error)) ? storageFull() : error;
}

/** A synchronous failure (an open, a transactionSync): InsufficientStorage when the storage is full. */
export function storageFaultSync(error: unknown): unknown {
  return isStorageFull(error) ? storageFull() : error;
}

interface CommitSource {
  committed: PromiseLike<unknown>;
  on(event: "beforecommit", listener: () => void): void;
}

/**
 * lmdb-js starts each event turn's batch in a task of its own (setImmediate), and that start may
 * make a fresh commit promise that no write was handed; should the commit fail, its rejection would
 * be unhandled (under `bun test` a failed test, in a server process dropped by the guard below).
 * Observed here for every turn of `root`, whoever wrote: the `beforecommit` listener runs in that
 * task, and the microtask it queues runs once the task has started the batch.
 */
export function observeCommits(root: CommitSource): void {
  const ignore = (error: unknown) => {
    (error as { commitError?: Promise<unknown> } | undefined)?.commitError?.catch(() => undefined);
  };
  root.on("beforecommit", () => queueMicrotask(() => root.committed.then(undefined, ignore)));
}

let guarded = false;

/**
 * lmdb-js makes promises of its own for every commit (an event turn's batch start, `commitError`)
 * and rejects them all when the commit fails: nothing can observe them, so each would be an
 * unhandled rejection, which ends a Bun process (kriszyp/lmdb-js#368). The writes that waited on
 * the commit are answered by their callers; these internal echoes are dropped here (a commit
 * wrapper, or LMDB's own storage-full error). Any other unhandled rejection is rethrown, so it
 * stays the crash it was.
 */
export function guardCommitRejections(): void {
  if (guarded) return;
  guarded = true;
  process.on("unhandledRejection", (reason) => {
    if (isCommitFailure(reason)) {
      (reason as { commitError: Promise<unknown> }).commitError.catch(() => undefined);
      return;
    }
    if (isStorageFull(reason) && typeof (reason as { code?: unknown }).code === "number") return;
    throw reason;
  });
}

function isCommitFailure(reason: unknown): boolean {
  return (
    reason instanceof Error &&
    reason.message.startsWith("Commit failed") &&
    (reason as { commitError?: unknown }).commitError instanceof Promise
  );
}
