/** Which files under a directory (a nats-server's store, a data dir) hold some bytes, for erasure tests. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files under `dir` whose bytes contain `needle`, as paths relative to `dir`. */
export function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  return filesUnder(dir)
    .filter((file) => readFileSync(file).includes(bytes))
    .map((file) => file.slice(dir.length));
}
