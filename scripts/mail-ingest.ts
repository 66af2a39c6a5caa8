/**
 * The mail ingest command: a label's (or a search's) threads of the last N days → daily Markdown
 * files. `bun run mail:ingest --help` lists the options; docs/mail-ingest.md explains them.
 */
import { runMailIngest } from "../src/mail-ingest/cli.ts";
import { systemClock } from "../src/runtime/clock.ts";

const code = await runMailIngest(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  clock: systemClock,
});
process.exit(code);
