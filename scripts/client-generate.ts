/**
 * `bun run client:generate`: writes client/openapi-types.ts from the service's OpenAPI document
 * (produced in process, scripts/openapi-document.ts), formatted as the repository's code is.
 * `bun run client:generate --check` writes nothing and exits 1 when the committed file differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseCli } from "./cli.ts";
import { CLIENT_TYPES_PATH, clientTypesSource } from "./client-types.ts";
import { liveOpenApiDocument } from "./openapi-document.ts";

const { values } = parseCli({
  usage: `Usage: bun run client:generate [--check]

Writes client/openapi-types.ts from the service's OpenAPI document, produced in process (nothing
listens, nothing outside the process is called).

Options:
  --check      write nothing; exit 1 when the committed file differs from the document
  -h, --help   show this help
`,
  options: { check: { type: "boolean", default: false } },
});
const check = values.check;
const fresh = await clientTypesSource(await liveOpenApiDocument());
let committed = "";
try {
  committed = readFileSync(CLIENT_TYPES_PATH, "utf8");
} catch {}
if (check) {
  if (committed !== fresh) {
    console.error(
      "client/openapi-types.ts is out of date with the OpenAPI document: run bun run client:generate",
    );
    process.exit(1);
  }
  console.log("client/openapi-types.ts matches the OpenAPI document");
} else {
  writeFileSync(CLIENT_TYPES_PATH, fresh);
  console.log(`wrote client/openapi-types.ts (${fresh.split("\n").length} lines)`);
}
