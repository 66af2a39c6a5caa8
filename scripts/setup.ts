/**
 * `bun run setup`: creates `.secrets/jwt-secret` (48 random bytes, base64, mode 0600) unless it
 * exists, so `bun run start:local` and `bun run mint-token` share one HS256 secret. Never prints it.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";

const dir = ".secrets";
const file = `${dir}/jwt-secret`;
if (existsSync(file)) {
  console.log(`setup: ${file} already exists; keeping it`);
} else {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${randomBytes(48).toString("base64")}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  console.log(`setup: wrote a new HS256 secret to ${file} (mode 0600)`);
}
