import { afterAll, beforeAll, expect, test } from "bun:test";
import { decodePayload } from "../helpers/api.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { cleanEnv, run } from "../helpers/spawn.ts";

/** `bun run mint-token --subject` (docs/auth.md "Subject-restricted tokens"). */
const mintToken = (args: string[]) =>
  run(["bun", "run", "scripts/mint-token.ts", ...args], cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET }));

let h: Harness;
let tenant: string;
let owner: string;
beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenant, token: owner } = await h.createTenant());
});
afterAll(() => h.close());

test("--subject and --unscoped mint a restricted token the app honours", async () => {
  await h.json("POST", "/memory/facts", { token: owner, body: { content: "Shared opening hours" } });
  await h.json("POST", "/memory/facts", { token: owner, body: { content: "Bob's tea", subject: "bob" } });
  const out = await mintToken(["--tenant", tenant, "--sub", "app", "--subject", "ada", "--unscoped", "none"]);
  expect(out.code).toBe(0);
  const token = out.stdout.trim();
  expect(decodePayload(token)).toMatchObject({ sub: "app", subject: "ada", unscoped: "none" });
  const written = await h.json("POST", "/memory/facts", { token, body: { content: "Ada's coffee" } });
  expect(written.body.subject).toBe("ada");
  const list = await h.json("GET", "/memory/facts", { token });
  expect(list.body.items.map((e: { content: string }) => e.content)).toEqual(["Ada's coffee"]);
});

test("a bad --subject, --unscoped without it, or --subject on an operator token exits 2 saying why", async () => {
  for (const args of [
    ["--tenant", tenant, "--subject", "a b"],
    ["--tenant", tenant, "--unscoped", "none"],
    ["--tenant", tenant, "--subject", "ada", "--unscoped", "all"],
    ["--admin", "--subject", "ada"],
  ]) {
    const out = await mintToken(args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/--subject|--unscoped/);
  }
});
