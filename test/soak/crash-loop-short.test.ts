import { expect, test } from "bun:test";
import { testSeed } from "../helpers/random.ts";
import { runCrashLoop, summaryLines } from "./crash-loop.ts";

/**
 * The CI version of `bun run soak` (test/soak/crash-loop.ts): 3 × kill -9 of a real server during
 * mixed traffic — single and batch writes (identical copies, one Idempotency-Key, or plain),
 * webhook deliveries (data and payments, some dead-lettering), bridge events in and out of order
 * (cycle 2, the embedded server), replays and redeliveries. After every restart each acknowledged
 * entry, dead letter and replay result is there, nothing is doubled, and the tenants' health
 * agrees with what is listed. `CRASH_CYCLES` runs more cycles; `TEST_SEED` replays a seed.
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 3);
const seed = testSeed();

test(`every acknowledged write, delivery, dead letter and replay survives kill -9, none doubled (${CYCLES} cycles, seed ${seed})`, async () => {
  const lines: string[] = [];
  const report = await runCrashLoop({ cycles: CYCLES, seed, log: (line) => lines.push(line) });
  const summary = [...lines, ...summaryLines(report)].join("\n");
  expect({
    kills: report.kills,
    losses: report.losses,
    doubles: report.doubles,
    unclean: report.unclean,
    serverErrors: report.serverErrors,
    refused: report.refused,
  }).toEqual({ kills: CYCLES, losses: [], doubles: [], unclean: [], serverErrors: 0, refused: 0 });
  // The run did what it names: writes of both kinds, webhooks, dead letters and bridge events were
  // acknowledged before kills, and the checks found them.
  for (const kind of ["single write", "batch write", "webhook", "webhook with dead letter", "bridge event"])
    expect({ kind, acked: (report.acked[kind] ?? 0) > 0, summary }).toEqual({ kind, acked: true, summary });
  expect(report.entriesChecked).toBeGreaterThan(0);
  expect(report.deadLettersChecked).toBeGreaterThan(0);
}, 180_000);
