import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SOURCE_IDS, SOURCES } from "../../src/sources/registry.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

/**
 * Every one of the 22 source ids answers the route's checks in CONTRACT §7's order: an unknown or
 * malformed tenant is a 404, a tenant without the source's secrets a 503 naming them, and once the
 * secrets are set, a delivery without valid credentials a 401.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

// A body of the usual shape (JSON, with a list of notifications) that carries no credential.
const BODY = JSON.stringify({
  value: [{ subscriptionId: "s", changeType: "created", resource: "r" }],
  id: "e",
});
const post = (source: string, tenantId: string, headers: Record<string, string> = {}) =>
  h.call("POST", `/webhooks/${source}/${tenantId}`, {
    raw: BODY,
    headers: { "content-type": "application/json", ...headers },
  });

test("the spec's 22 source identifiers are all known", () => {
  expect(SOURCE_IDS).toHaveLength(22);
});

describe.each([...SOURCE_IDS])("%s", (id) => {
  const source = SOURCES.get(id)!;

  test("a tenant without the source's secrets → 503 naming each missing variable", async () => {
    const t = await h.createTenant();
    const problem = await expectProblem(await post(id, t.tenant_id), 503, "secret_missing");
    for (const base of source.requiredSecrets) expect(problem.detail).toContain(`${base}_${t.tenant_id}`);
  });

  test("an unknown or malformed tenant → 404, before any secret is looked at", async () => {
    await expectProblem(await post(id, "01JDB2X6J3KQ5W8Z3M4N7P9R2S"), 404, "not_found");
    await expectProblem(await post(id, "not-a-tenant"), 404, "not_found");
  });

  test("with the secrets set, a delivery without valid credentials → 401", async () => {
    const t = await h.createTenant();
    setSecrets(
      h,
      t.tenant_id,
      Object.fromEntries(source.requiredSecrets.map((base) => [base, `${base.toLowerCase()}-value`])),
    );
    const bare = await post(id, t.tenant_id);
    await expectProblem(bare, 401, "unauthorized");
    const forged = await post(id, t.tenant_id, {
      authorization: "Bearer forged",
      "x-hub-signature-256": "sha256=00",
      "x-signature": "00",
    });
    await expectProblem(forged, 401, "unauthorized");
  });
});

test("an unknown source is a 404, whatever the tenant", async () => {
  const t = await h.createTenant();
  await expectProblem(await post("nope", t.tenant_id), 404, "not_found");
  await expectProblem(await post("__proto__", t.tenant_id), 404, "not_found");
});

test("the OpenAPI document gives the webhook route's source parameter as an enum of the 22 ids", async () => {
  const doc = (await h.json("GET", "/openapi/json")).body;
  const parameters = doc.paths["/webhooks/{source}/{tenant_id}"].post.parameters as Array<{
    name: string;
    schema: { enum?: string[] };
  }>;
  const sourceParam = parameters.find((p) => p.name === "source");
  expect(sourceParam?.schema.enum?.sort()).toEqual([...SOURCE_IDS].sort());
});
