/**
 * Options of the HTTP server, alike in single-node mode (lib.ts) and for a cluster node
 * (cluster/serve.ts).
 */
import { type Config, ConfigError } from "../config/config.ts";

/**
 * Seconds a connection may stay silent before Bun closes it. Bun's default (10 s) would reset a
 * connection whose answer legitimately takes longer: an import of 100,000 entries, an erasure
 * waiting for its compaction, or (in cluster mode) a forwarded request waiting out its 10 s
 * forward timeout before its 503. 60 s, as common proxies use.
 */
export const IDLE_TIMEOUT_S = 60;

export function serverOptions(config: Pick<Config, "bodyLimitBytes" | "importLimitBytes">) {
  return {
    // Bun's own cap sits above the API limit so oversize bodies get the API's 413 problem document.
    // An import is streamed: its limit is counted by its route, each JSON route caps its own read.
    maxRequestBodySize: Math.max(config.bodyLimitBytes * 4, config.importLimitBytes + 1),
    idleTimeout: IDLE_TIMEOUT_S,
    // Never SO_REUSEPORT (Elysia's Bun adapter asks for it by default): a second process on the
    // same port would get a share of the connections, and answer them from its own data.
    reusePort: false,
  };
}

/** The address is taken (by another process, or another server of this one): the start is refused. */
export class PortInUse extends ConfigError {
  constructor(readonly address: string) {
    super(`${address} is in use: stop what listens there, or set another PORT (or HOST)`);
  }
}

/** Runs `bind` (Bun.serve or Elysia's listen); a port in use throws PortInUse naming the address. */
export function bindOrRefuse<T>(host: string, port: number, bind: () => T): T {
  try {
    return bind();
  } catch (error) {
    if ((error as { code?: unknown }).code === "EADDRINUSE") throw new PortInUse(`${host}:${port}`);
    throw error;
  }
}
