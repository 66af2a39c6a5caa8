/**
 * `bun run client:python`: writes the Python client's generated files
 * (clients/python/typed_memory/models.py, client.py) from the service's OpenAPI document, produced
 * in process (scripts/openapi-document.ts). `--check` writes nothing and exits 1 when a committed
 * file differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "./cli.ts";
import { liveOpenApiDocument } from "./openapi-document.ts";
import { PYTHON_PACKAGE_DIR, pythonClientFiles } from "./python-client.ts";

const { values } = parseCli({
  usage: `Usage: bun run client:python [--check]

Writes clients/python/typed_memory/models.py and client.py from the service's OpenAPI document,
produced in process (nothing listens, nothing outside the process is called).

Options:
  --check      write nothing; exit 1 when a committed file differs from the document
  -h, --help   show this help
`,
  options: { check: { type: "boolean", default: false } },
});
const files = pythonClientFiles(await liveOpenApiDocument());
let stale = 0;
for (const [name, fresh] of Object.entries(files)) {
  const path = join(PYTHON_PACKAGE_DIR, name);
  let committed = "";
  try {
    committed = readFileSync(path, "utf8");
  } catch {}
  if (values.check) {
    if (committed !== fresh) {
      stale++;
      console.error(`clients/python/typed_memory/${name} is out of date: run bun run client:python`);
    }
  } else {
    writeFileSync(path, fresh);
    console.log(`wrote clients/python/typed_memory/${name} (${fresh.split("\n").length} lines)`);
  }
}
if (values.check && stale > 0) process.exit(1);
if (values.check) console.log("the Python client matches the OpenAPI document");
