import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDotenv } from "../../src/secrets/secrets-file.ts";
import { cleanEnv, ROOT } from "../helpers/spawn.ts";

/**
 * `bun run setup` (the README's first command) leaves what `bun run start:local` reads: the HS256
 * secret and an empty per-tenant secrets file, both mode 0600, and keeps both on a second run.
 */
const cwd = mkdtempSync(join(tmpdir(), "mrt-setup-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function setup(): Promise<{ code: number; stdout: string }> {
  const proc = Bun.spawn(["bun", "run", join(ROOT, "scripts/setup.ts")], {
    cwd,
    env: cleanEnv({}),
    stdout: "pipe",
    stderr: "inherit",
  });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, stdout };
}

test("setup writes the JWT secret and an empty secrets file (0600), then keeps them", async () => {
  const first = await setup();
  expect(first.code).toBe(0);
  const secretPath = join(cwd, ".secrets/jwt-secret");
  const secretsPath = join(cwd, ".secrets/tenants.env");
  const secret = readFileSync(secretPath, "utf8");
  const secrets = readFileSync(secretsPath, "utf8");
  expect(Buffer.from(secret.trim(), "base64").byteLength).toBe(48);
  expect(parseDotenv(secrets)).toEqual({});
  expect([statSync(secretPath).mode & 0o777, statSync(secretsPath).mode & 0o777]).toEqual([0o600, 0o600]);
  expect(first.stdout).not.toContain(secret.trim());

  const second = await setup();
  expect(second.code).toBe(0);
  expect(second.stdout).toContain("already exists; keeping it");
  expect([readFileSync(secretPath, "utf8"), readFileSync(secretsPath, "utf8")]).toEqual([secret, secrets]);
});
