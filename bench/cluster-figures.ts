import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { machine, median, round } from "./stats.ts";

/** A measured load of the cluster soak (test/cluster/soak.ts `load`). */
export interface SoakLoad {
  requests: number;
  errors: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
}

/** One figure round of the soak: GETs at the owner and through a non-owner, then webhook intake. */
export interface ClusterRound {
  local_get: SoakLoad;
  forwarded_get: SoakLoad;
  intake: SoakLoad & { applied_per_second: number };
}

/**
 * Issue 21's cluster figures from the soak's rounds: each the median of its runs (one per round).
 * - forwarded_local_ratio: GETs/s through a non-owner ÷ GETs/s at the owner, taken back to back;
 * - intake_deliveries_per_s: signed webhook deliveries accepted/s at a non-owner (the stream's intake);
 * - intake_applied_per_s: the same deliveries until all are readable at the owner.
 */
export function clusterFigures(rounds: ClusterRound[]) {
  const runs = {
    forwarded_local_ratio: rounds.map((r) =>
      r.local_get.per_second > 0 ? round(r.forwarded_get.per_second / r.local_get.per_second) : Number.NaN,
    ),
    intake_deliveries_per_s: rounds.map((r) => r.intake.per_second),
    intake_applied_per_s: rounds.map((r) => r.intake.applied_per_second),
    local_get_per_s: rounds.map((r) => r.local_get.per_second),
    forwarded_get_per_s: rounds.map((r) => r.forwarded_get.per_second),
  };
  const medianOf = (values: number[]) => {
    const m = median(values);
    return Number.isFinite(m) ? round(m) : null;
  };
  return {
    forwarded_local_ratio: medianOf(runs.forwarded_local_ratio),
    intake_deliveries_per_s: medianOf(runs.intake_deliveries_per_s),
    intake_applied_per_s: medianOf(runs.intake_applied_per_s),
    local_get_per_s: medianOf(runs.local_get_per_s),
    forwarded_get_per_s: medianOf(runs.forwarded_get_per_s),
    runs,
  };
}

const commit = () => {
  const git = spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" });
  return git.status === 0 ? git.stdout.trim() : "unknown";
};

/** Writes the figures (medians, runs, the rounds' loads) to bench/results/cluster-soak.json. */
export function writeClusterFigures(
  rounds: ClusterRound[],
  settings: Record<string, number>,
  /** Losses and doubles the kill cycles found (0 on a sound run). */
  failures: number,
  dir = join(import.meta.dir, "results"),
) {
  const file = join(dir, "cluster-soak.json");
  const figures = clusterFigures(rounds);
  const out = {
    ...figures,
    failures,
    at: new Date().toISOString(),
    commit: commit(),
    machine: machine(),
    settings: { rounds: rounds.length, ...settings },
    details: { rounds },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  return { ...figures, file };
}
