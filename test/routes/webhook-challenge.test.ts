/**
 * WWW-Authenticate on webhook 401s (docs/auth.md, "Webhook 401s"): the sources whose platforms
 * send a bearer token (data, warehouse, mail) get a Bearer challenge; the sources that sign their
 * bodies get none. The cluster's intake edge refuses with the same answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkAtEdge } from "../../src/cluster/intake-edge.ts";
import { BEARER_SOURCES } from "../../src/ingest/delivery-refusal.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const NO_TOKEN = 'Bearer realm="webhooks"';
const BAD_TOKEN = 'Bearer realm="webhooks", error="invalid_token"';

let h: Harness;
let tenantId: string;

beforeAll(async () => {
  // Nothing here fetches keys (a malformed token is refused before), and never off this host.
  h = await startHarness({ env: { MAIL_PUBSUB_JWKS_URL: "http://127.0.0.1:9/jwks" } });
  ({ tenant_id: tenantId } = await h.createTenant());
  setSecrets(h, tenantId, {
    DATA_WEBHOOK_TOKEN: `data-${crypto.randomUUID()}`,
    WAREHOUSE_WEBHOOK_TOKEN: `warehouse-${crypto.randomUUID()}`,
    MAIL_PUBSUB_AUDIENCE: "https://memory.example/webhooks/mail",
    MAIL_WATCH_EMAIL: "ops@example.com",
    MARKETING_CRM_CLIENT_SECRET: `mkt-${crypto.randomUUID()}`,
    MARKETING_CRM_APP_ID: "4242",
  });
});
afterAll(() => h.close());

function deliver(source: string, headers: Record<string, string> = {}): Promise<Response> {
  return h.call("POST", `/webhooks/${source}/${tenantId}`, {
    raw: "[]",
    headers: { "content-type": "application/json", ...headers },
  });
}

describe("webhook 401s and WWW-Authenticate", () => {
  test("the bearer sources are data, warehouse and mail", () => {
    expect([...BEARER_SOURCES].sort()).toEqual(["data", "mail", "warehouse"]);
  });

  for (const source of ["data", "warehouse", "mail"]) {
    test(`${source}: no token → bare Bearer challenge; a wrong one → invalid_token`, async () => {
      const none = await deliver(source);
      expect(none.headers.get("www-authenticate")).toBe(NO_TOKEN);
      expect((await expectProblem(none, 401, "unauthorized")).detail).toMatch(/^delivery rejected: /);
      const basic = await deliver(source, { authorization: "Basic dXNlcjpwYXNz" });
      expect(basic.headers.get("www-authenticate")).toBe(NO_TOKEN);
      await expectProblem(basic, 401, "unauthorized");
      const wrong = await deliver(source, { authorization: "Bearer abc.def.ghi" });
      expect(wrong.headers.get("www-authenticate")).toBe(BAD_TOKEN);
      await expectProblem(wrong, 401, "unauthorized");
    });
  }

  test("a body-signed source's bad signature is a 401 without a challenge", async () => {
    const res = await deliver("marketing_crm", {
      "x-marketingcrm-signature": "0".repeat(64),
      authorization: "Bearer abc.def.ghi",
    });
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect((await expectProblem(res, 401, "unauthorized")).detail).toMatch(/^delivery rejected: /);
  });

  test("the cluster's intake edge refuses with the same challenge", async () => {
    const deps = { ingest: h.runtime.services.ingest, store: h.runtime.stores.store };
    const edge = (source: string, headers: Record<string, string>) =>
      checkAtEdge(
        deps,
        new Request(`http://localhost/webhooks/${source}/${tenantId}`, { method: "POST", headers }),
        { source, tenantId },
        new TextEncoder().encode("[]"),
      );
    const data = await edge("data", { authorization: "Bearer wrong" });
    const marketing = await edge("marketing_crm", { "x-marketingcrm-signature": "0".repeat(64) });
    expect(data.kind === "refused" && data.error.headers["www-authenticate"]).toBe(BAD_TOKEN);
    expect(marketing.kind === "refused" && marketing.error.headers["www-authenticate"]).toBeUndefined();
  });
});
