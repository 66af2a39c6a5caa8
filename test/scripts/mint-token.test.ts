import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { decodePayload } from "../helpers/api.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { cleanEnv, run } from "../helpers/spawn.ts";

const mintToken = (
  args: string[],
  env: Record<string, string | undefined> = { MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET },
) => run(["bun", "run", "scripts/mint-token.ts", ...args], cleanEnv(env));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("scripts/mint-token.ts", () => {
  test("--admin prints an operator token, alone on stdout, that the app accepts", async () => {
    const out = await mintToken(["--admin"]);
    expect(out.code).toBe(0);
    const token = out.stdout.trim();
    expect(out.stdout).toBe(`${token}\n`);
    expect(token.split(".")).toHaveLength(3);
    const claims = decodePayload(token);
    expect(claims).toMatchObject({ admin: true, tenant_id: OPERATOR_TENANT_ID, sub: "operator", roles: [] });
    expect(claims.exp - claims.iat).toBe(3600);

    const created = await h.json("POST", "/admin/tenants", { token, body: { name: "Minted Co" } });
    expect(created.status).toBe(201);
    const listed = await h.json("GET", "/admin/tenants", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.tenants.map((t: { name: string }) => t.name)).toContain("Minted Co");
  });

  test("--tenant with roles, sub and ttl prints a tenant token the app accepts", async () => {
    const { tenant_id } = await h.createTenant("Script Tenant");
    const out = await mintToken([
      "--tenant",
      tenant_id,
      "--roles",
      "tenant_admin",
      "--sub",
      "agent-7",
      "--ttl",
      "900",
    ]);
    expect(out.code).toBe(0);
    const token = out.stdout.trim();
    const claims = decodePayload(token);
    expect(claims.exp - claims.iat).toBe(900);
    const me = await h.json("GET", "/tenants/me", { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ tenant_id, sub: "agent-7", roles: ["tenant_admin"], admin: false });
    await expectProblem(await h.call("GET", "/admin/tenants", { token }), 403, "forbidden");
  });

  test("a token minted with another secret is refused by the app", async () => {
    const out = await mintToken(["--admin"], { MEMORY_RUNTIME_JWT_SECRET: `${TEST_SECRET}-other` });
    expect(out.code).toBe(0);
    await expectProblem(
      await h.call("GET", "/admin/tenants", { token: out.stdout.trim() }),
      401,
      "unauthorized",
    );
  });

  test("refuses to run without the secret, naming the variable", async () => {
    const out = await mintToken(["--admin"], {});
    expect(out.code).not.toBe(0);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("MEMORY_RUNTIME_JWT_SECRET");
  });

  test("refuses bad arguments", async () => {
    for (const args of [
      [],
      ["--tenant", "not-a-ulid"],
      ["--admin", "--ttl", "abc"],
      ["--admin", "--ttl", "0"],
    ]) {
      const out = await mintToken(args);
      expect(out.code).not.toBe(0);
      expect(out.stdout).toBe("");
      expect(out.stderr).toContain("mint-token");
    }
  });
});
