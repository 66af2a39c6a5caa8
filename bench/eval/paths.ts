/** Where the harness writes, relative to this folder (so any working directory works). */
import { join } from "node:path";

export const RESULTS_DIR = join(import.meta.dir, "..", "results");
