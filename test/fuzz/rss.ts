import { readFileSync } from "node:fs";

export interface Rss {
  /** VmRSS: all resident memory. */
  total: number;
  /** RssAnon: the heap and other private memory (what a leak grows). */
  anon: number;
  /** RssFile: resident pages of mapped files (LMDB maps its data files: this grows with the data). */
  file: number;
}

/** A process's resident memory in KiB (/proc/<pid>/status), or undefined once it is gone. */
export function rssKiB(pid: number): Rss | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status)?.[1] ?? 0);
    return { total: field("VmRSS"), anon: field("RssAnon"), file: field("RssFile") };
  } catch {
    return undefined;
  }
}

const mib = (kib: number) => Math.round(kib / 102.4) / 10;

export interface MemoryFigures {
  /** VmRSS in MiB. */
  start: number;
  peak: number;
  end: number;
  /** RssAnon in MiB (private memory: the heap). */
  anonStart: number;
  anonPeak: number;
  anonEnd: number;
  /** RssFile at the end, in MiB (mapped data files). */
  fileEnd: number;
  /** VmRSS and RssAnon after each batch, in MiB. */
  afterEachBatch: number[];
  anonAfterEachBatch: number[];
}

/** Samples a process's resident memory: at the start, after each batch, at the end. */
export class MemoryWatch {
  private readonly first: Rss;
  private last: Rss;
  private peak = 0;
  private anonPeak = 0;
  private readonly totals: number[] = [];
  private readonly anons: number[] = [];

  constructor(private readonly pid: number) {
    this.first = this.read();
    this.last = this.first;
  }

  sample(): Rss {
    const now = this.read();
    this.last = now;
    this.totals.push(mib(now.total));
    this.anons.push(mib(now.anon));
    return now;
  }

  figures(): MemoryFigures {
    return {
      start: mib(this.first.total),
      peak: mib(this.peak),
      end: mib(this.last.total),
      anonStart: mib(this.first.anon),
      anonPeak: mib(this.anonPeak),
      anonEnd: mib(this.last.anon),
      fileEnd: mib(this.last.file),
      afterEachBatch: this.totals,
      anonAfterEachBatch: this.anons,
    };
  }

  private read(): Rss {
    const rss = rssKiB(this.pid) ?? { total: 0, anon: 0, file: 0 };
    this.peak = Math.max(this.peak, rss.total);
    this.anonPeak = Math.max(this.anonPeak, rss.anon);
    return rss;
  }
}
