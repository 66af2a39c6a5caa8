/**
 * `bun run setup`: creates, unless they exist, `.secrets/jwt-secret` (48 random bytes, base64) so
 * `bun run start:local` and `bun run mint-token` share one HS256 secret, and `.secrets/tenants.env`
 * (empty), the per-tenant secrets file `bun run start:local` reads and re-reads on SIGHUP and
 * `POST /admin/reload`. Both mode 0600 (the service refuses a secrets file others can read).
 * Never prints a secret.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { parseCli } from "./cli.ts";

parseCli({
  usage: `Usage: bun run setup

Creates, unless they exist, .secrets/jwt-secret (a new HS256 secret, shared by bun run start:local
and bun run mint-token) and .secrets/tenants.env (the per-tenant secrets file, empty), both mode
0600. Never prints a secret; an existing file is kept. Takes no options but -h, --help.
`,
});

const dir = ".secrets";

function createOnce(file: string, content: () => string, what: string): void {
  if (existsSync(file)) {
    console.log(`setup: ${file} already exists; keeping it`);
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, content(), { mode: 0o600 });
  chmodSync(file, 0o600);
  console.log(`setup: wrote ${what} to ${file} (mode 0600)`);
}

createOnce(`${dir}/jwt-secret`, () => `${randomBytes(48).toString("base64")}\n`, "a new HS256 secret");
createOnce(
  `${dir}/tenants.env`,
  () => "# Per-tenant secrets, one NAME_<TENANT_ID>=value a line (docs/webhooks.md#secrets).\n",
  "an empty per-tenant secrets file",
);
