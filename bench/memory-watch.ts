import { totalmem } from "node:os";
import { availableMb, procStatusMb, round } from "./stats.ts";

/** One reading of a process's memory, in MiB. */
export interface MemorySample {
  stage: string;
  at_s: number;
  rss_mb: number;
  /** Anonymous pages (heap, native index): what the process cannot give back to the page cache. */
  anon_mb: number | undefined;
  /** File pages (the LMDB map, a memory-mapped index): reclaimable by the kernel. */
  file_mb: number | undefined;
  /** MemAvailable of the whole machine at that moment. */
  available_mb: number;
  entries?: number;
}

export interface MemoryWatchOptions {
  /** The process stops being allowed to grow past this share of the machine's memory ... */
  ceilingShare?: number;
  /** ... or past this many MiB, when set (BENCH_MEMORY_CEILING_MB: to try the abort on a small run). */
  ceilingMb?: number;
  /** ... or when the machine has less than this left. */
  minAvailableMb?: number;
  /** Between background readings. */
  everyMs?: number;
  /** Called once, at the first reading past a limit (kill the process there). */
  onLimit?: (reason: string) => void;
}

/**
 * Watches one process's memory (/proc/<pid>/status) so that a large run stays bounded: a reading
 * every `everyMs` keeps the peak and stops the run (`onLimit`, then `exceeded` says why) as soon as
 * the process nears the machine's memory, whatever stage the bench is in, even mid-request; the
 * stages' own readings (`sample`) are kept for the report.
 */
export class MemoryWatch {
  readonly samples: MemorySample[] = [];
  peakMb = 0;
  exceeded: string | undefined;
  private readonly started = performance.now();
  private readonly timer: Timer;
  private readonly ceilingMb: number;
  private readonly minAvailableMb: number;

  constructor(
    readonly pid: number | "self",
    private readonly opts: MemoryWatchOptions = {},
  ) {
    const envCeiling = Number(process.env.BENCH_MEMORY_CEILING_MB);
    this.ceilingMb =
      opts.ceilingMb ?? (envCeiling > 0 ? envCeiling : (totalmem() / 2 ** 20) * (opts.ceilingShare ?? 0.85));
    this.minAvailableMb = opts.minAvailableMb ?? 1536;
    this.timer = setInterval(() => this.read("watch"), opts.everyMs ?? 250);
  }

  /** A reading recorded under `stage` (and checked against the limits like the others). */
  sample(stage: string, entries?: number): MemorySample {
    const reading = this.read(stage);
    const sample = entries === undefined ? reading : { ...reading, entries };
    this.samples.push(sample);
    return sample;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private read(stage: string): MemorySample {
    const rss = procStatusMb(this.pid) ?? 0;
    const available = availableMb();
    this.peakMb = Math.max(this.peakMb, rss);
    if (!this.exceeded) {
      const reason =
        rss > this.ceilingMb
          ? `RSS ${rss} MB past the ceiling of ${Math.round(this.ceilingMb)} MB`
          : available < this.minAvailableMb
            ? `${Math.round(available)} MB left on the machine (RSS ${rss} MB)`
            : undefined;
      if (reason) {
        this.exceeded = `${stage}: ${reason}`;
        this.opts.onLimit?.(this.exceeded);
      }
    }
    return {
      stage,
      at_s: round((performance.now() - this.started) / 1000, 1),
      rss_mb: round(rss, 0),
      anon_mb: procStatusMb(this.pid, "RssAnon"),
      file_mb: procStatusMb(this.pid, "RssFile"),
      available_mb: round(available, 0),
    };
  }
}
