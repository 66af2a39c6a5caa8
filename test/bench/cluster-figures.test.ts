import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterRound, clusterFigures, writeClusterFigures } from "../../bench/cluster-figures.ts";

const load = (per_second: number) => ({ requests: 1000, errors: 0, per_second, p50_ms: 1, p99_ms: 2 });
const roundOf = (local: number, forwarded: number, intake: number): ClusterRound => ({
  local_get: load(local),
  forwarded_get: load(forwarded),
  intake: { ...load(intake), applied_per_second: intake - 10 },
});

describe("cluster soak figures", () => {
  test("the ratio of each round is forwarded ÷ local, and each figure is the median of the rounds", () => {
    const figures = clusterFigures([
      roundOf(10_000, 3_000, 600),
      roundOf(12_000, 6_000, 200),
      roundOf(8_000, 3_200, 800),
    ]);
    expect(figures.runs.forwarded_local_ratio).toEqual([0.3, 0.5, 0.4]);
    expect(figures.forwarded_local_ratio).toBe(0.4);
    expect(figures.intake_deliveries_per_s).toBe(600);
    expect(figures.intake_applied_per_s).toBe(590);
    expect(figures.local_get_per_s).toBe(10_000);
  });

  test("no rounds give no figures rather than a number", () => {
    const figures = clusterFigures([]);
    expect(figures.forwarded_local_ratio).toBeNull();
    expect(figures.intake_deliveries_per_s).toBeNull();
  });

  test("a round without a local figure has no ratio and does not pull the median", () => {
    const figures = clusterFigures([roundOf(0, 3_000, 600), roundOf(10_000, 3_000, 600)]);
    expect(figures.forwarded_local_ratio).toBe(0.3);
  });

  test("the file holds the medians, the runs, the failures and each round's loads", () => {
    const dir = mkdtempSync(join(tmpdir(), "cluster-figures-"));
    try {
      const rounds = [roundOf(10_000, 3_100, 660)];
      const written = writeClusterFigures(rounds, { cycles: 0 }, 0, dir);
      const file = JSON.parse(readFileSync(written.file, "utf8"));
      expect(written.file).toBe(join(dir, "cluster-soak.json"));
      expect(file.forwarded_local_ratio).toBe(0.31);
      expect(file.intake_deliveries_per_s).toBe(660);
      expect(file.runs.forwarded_local_ratio).toEqual([0.31]);
      expect(file.failures).toBe(0);
      expect(file.settings).toEqual({ rounds: 1, cycles: 0 });
      expect(file.details.rounds).toEqual(rounds);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
