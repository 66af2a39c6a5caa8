/**
 * What `GET /readyz` checks (docs/operations.md, "Health for orchestrators"): the server is not
 * stopping, the system store is open, and whatever the readiness port adds (cluster mode: the node
 * serves its partitions). Every check is reported, so a failed probe says which one failed.
 */
import type { ShutdownGate } from "../http/shutdown-gate.ts";
import type { ReadinessCheck, ReadinessChecks } from "../models/probes.ts";
import type { ReadinessProbe } from "../ports/runtime-ports.ts";

export interface ReadinessParts {
  gate: ShutdownGate;
  store: { readonly open: boolean };
  /** The readiness port (src/ports/runtime-ports.ts); absent on a single node. */
  probe?: ReadinessProbe;
}

/** Every check, and the failed ones as `name: why` (the 503's detail). */
export interface ReadinessReport {
  checks: ReadinessChecks;
  failed: string[];
}

const OK: ReadinessCheck = { ok: true };

export function readinessOf({ gate, store, probe }: ReadinessParts): () => ReadinessReport {
  return () => {
    const checks: ReadinessChecks = {
      accepting: gate.stopping ? failed("the server is shutting down") : OK,
      system_store: store.open ? OK : failed("the system store is closed"),
      ...(probe ? { cluster: probe() } : {}),
    };
    const failures = Object.entries(checks)
      .filter(([, check]) => !check.ok)
      .map(([name, check]) => `${name}: ${check.detail ?? "fails"}`);
    return { checks, failed: failures };
  };
}

function failed(detail: string): ReadinessCheck {
  return { ok: false, detail };
}
