/**
 * The teacher's vectors: USE-lite (the `local` embedder's model) run in this process, 64 texts a
 * call, each group of texts cached under .tmp/distil/ by the SHA-256 of its texts, so a rebuild
 * after a change to the fit alone does not embed again. Progress goes to stderr.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadUseLite, type SentenceEncoder, USE_LITE_DIMS } from "../../src/embedding/use-lite.ts";
import { normalizeInPlace } from "../../src/embedding/vector-math.ts";

const BATCH = 64;
const CACHE_DIR = ".tmp/distil";
/** Texts per cache file: an interrupted build resumes from its last whole chunk. */
const CHUNK = 4_096;

export type Teacher = (name: string, texts: string[]) => Promise<Float32Array>;

/** Measured: texts per second in batches, and the time of a single text (the `local` query cost). */
export interface TeacherSpeed {
  textsPerSecond: number;
  singleTextMs: number;
}

export async function startTeacher(): Promise<{
  embed: Teacher;
  speed: (sample: string[]) => Promise<TeacherSpeed>;
}> {
  let model: SentenceEncoder | undefined;
  const loaded = async () => {
    model ??= await loadUseLite();
    return model;
  };
  const embedChunk: Teacher = async (name, texts) => {
    const key = createHash("sha256").update(texts.join("\n")).digest("hex").slice(0, 16);
    const file = join(CACHE_DIR, `${name}-${key}.f32`);
    if (existsSync(file)) return new Float32Array(readFileSync(file).buffer.slice(0));
    const m = await loaded();
    const out = new Float32Array(texts.length * USE_LITE_DIMS);
    const started = performance.now();
    for (let start = 0; start < texts.length; start += BATCH) {
      const vectors = await m.embed(texts.slice(start, start + BATCH));
      vectors.forEach((v, k) => {
        const row = Float32Array.from(v);
        normalizeInPlace(row);
        out.set(row, (start + k) * USE_LITE_DIMS);
      });
      const done = Math.min(start + BATCH, texts.length);
      if ((start / BATCH) % 20 === 0 || done === texts.length) {
        const rate = done / ((performance.now() - started) / 1000);
        const eta = Math.round((texts.length - done) / rate);
        console.error(`teacher ${name}: ${done}/${texts.length}, ${rate.toFixed(0)}/s, ~${eta}s left`);
      }
    }
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(file, new Uint8Array(out.buffer));
    return out;
  };
  const embed: Teacher = async (name, texts) => {
    const out = new Float32Array(texts.length * USE_LITE_DIMS);
    for (let start = 0; start < texts.length; start += CHUNK) {
      const chunk = texts.slice(start, start + CHUNK);
      out.set(await embedChunk(`${name}-${start / CHUNK}`, chunk), start * USE_LITE_DIMS);
    }
    return out;
  };
  /** Measured on `sample` afresh (a cached build embeds nothing): batches of 64, then singles. */
  const speed = async (sample: string[]): Promise<TeacherSpeed> => {
    const m = await loaded();
    await m.embed(sample.slice(0, 1));
    let started = performance.now();
    for (let start = 0; start < sample.length; start += BATCH)
      await m.embed(sample.slice(start, start + BATCH));
    const textsPerSecond = sample.length / ((performance.now() - started) / 1000);
    started = performance.now();
    for (const text of sample.slice(0, 30)) await m.embed([text]);
    return { textsPerSecond, singleTextMs: (performance.now() - started) / Math.min(30, sample.length) };
  };
  return { embed, speed };
}
