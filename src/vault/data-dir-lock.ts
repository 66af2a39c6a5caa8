/**
 * One live owner per data directory (docs/operations.md#one-owner-per-data-directory). Two runtimes
 * on one directory would each keep their own in-memory indexes and caches over the same vaults, and
 * neither would see what the other wrote. So whatever opens the directory's vaults (the server, a
 * cluster node, an embedding program, the demo) first takes an exclusive flock(2) on
 * `<data dir>/runtime.lock`, held until it stops.
 *
 * flock, not a pid file: the kernel drops the lock when its descriptor closes, so a process killed
 * with SIGKILL leaves no stale lock behind; its pid, written into the file, only names the holder
 * for the refusal's message. The lock belongs to the open file (not the process, unlike fcntl's),
 * so a second runtime in the same process is refused too, and the descriptor is opened close-on-exec
 * (Node's and Bun's default), so no child process inherits it.
 */
import { dlopen, FFIType, type Pointer, read } from "bun:ffi";
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../config/config.ts";

export const LOCK_FILE = "runtime.lock";

const ERRNO_SYMBOL = process.platform === "darwin" ? "__error" : "__errno_location";
const LIBC_NAMES =
  process.platform === "darwin"
    ? ["libc.dylib", "/usr/lib/libSystem.B.dylib"]
    : ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`, "libc.so"];
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** EWOULDBLOCK: held by another open file (Linux 11, macOS 35); any other errno is a real failure. */
const WOULD_BLOCK = process.platform === "darwin" ? 35 : 11;

/** Another process (or another runtime of this one) holds the directory: the start is refused. */
export class DataDirInUse extends ConfigError {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | undefined,
  ) {
    const holder =
      holderPid === undefined
        ? "another runtime"
        : holderPid === process.pid
          ? "another runtime of this process"
          : `process ${holderPid}`;
    super(
      `the data directory ${dataDir} is in use by ${holder} (it holds ${join(dataDir, LOCK_FILE)}); ` +
        "stop it first, or give this one its own MEMORY_RUNTIME_DATA_DIR",
    );
  }
}

/** The held lock: `release` (idempotent) at stop, after the last vault has closed. */
export interface DataDirLock {
  readonly dataDir: string;
  release(): void;
}

/** Takes the directory (made if absent) for this process, or throws DataDirInUse. */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE);
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  } catch (error) {
    throw new ConfigError(`cannot open ${path}: ${(error as Error).message}`);
  }
  if (libc().flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = lastErrno();
    closeSync(fd);
    if (errno !== WOULD_BLOCK) throw new ConfigError(`cannot lock ${path} (errno ${errno})`);
    throw new DataDirInUse(dir, holderOf(path));
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let held = true;
  return {
    dataDir: dir,
    release() {
      if (!held) return;
      held = false;
      // The pid goes first: a reader between the two steps sees no holder rather than a wrong one.
      ftruncateSync(fd, 0);
      libc().flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

/**
 * What `open` builds (a runtime), built holding the directory: released at once if `open` throws,
 * else once its `stop` has resolved (every vault closed).
 */
export function holdingDataDir<T extends { stop(): Promise<void> }>(dataDir: string, open: () => T): T {
  const lock = lockDataDir(dataDir);
  const opened = builtHolding(lock, open);
  const stop = async () => {
    await opened.stop();
    lock.release();
  };
  return { ...opened, stop };
}

/** What `build` answers, built holding `lock`: the lock is released at once if `build` throws. */
export function builtHolding<T>(lock: DataDirLock, build: () => T): T {
  try {
    return build();
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The pid the holder wrote, if it has (it writes right after taking the lock). */
function holderOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

type Libc = ReturnType<typeof openLibc>;

let loaded: Libc | undefined;

/** The C library's flock and errno, opened once (glibc or musl on Linux, libSystem on macOS). */
function libc(): Libc {
  if (loaded) return loaded;
  let failure: unknown;
  for (const name of LIBC_NAMES) {
    try {
      loaded = openLibc(name);
      return loaded;
    } catch (error) {
      failure = error;
    }
  }
  throw new ConfigError(`cannot load the C library to lock the data directory: ${failure}`);
}

function openLibc(name: string) {
  const errno = { args: [], returns: FFIType.ptr } as const;
  const { symbols } = dlopen(name, {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    // errno's address: one name per C library, the same signature.
    [ERRNO_SYMBOL]: errno,
  });
  const errnoAt = (symbols as unknown as Record<string, () => Pointer | null>)[ERRNO_SYMBOL];
  if (!errnoAt) throw new Error(`${name} has no ${ERRNO_SYMBOL}`);
  return { flock: symbols.flock, errnoAt };
}

function lastErrno(): number {
  const at = libc().errnoAt();
  return at ? read.i32(at, 0) : -1;
}
