import { expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { STANDARD_SECRET, standardEvent, standardSender } from "../fakes/senders/standard.ts";
import { describeSource } from "./conformance.ts";
import { withField } from "./lifecycle-conformance.ts";

describeSource({
  sender: standardSender,
  mapped: [
    {
      name: "a *.failed event",
      body: () => standardEvent("export.failed", { id: "exp_1", message: "disk quota exceeded" }),
      eventType: "export.failed",
      category: "exception",
      content: "export.failed failed (exp_1): disk quota exceeded",
      fields: { severity: "high", status: "open" },
    },
    {
      name: "a *.completed event (no decision to resolve)",
      body: () => standardEvent("import.completed", { id: "imp_9", description: "10,000 rows" }),
      eventType: "import.completed",
      category: "fact",
      content: "import.completed completed (imp_9): 10,000 rows",
      fields: { tags: ["outcome", "standard", "completed", "import.completed"] },
    },
    {
      name: "any other event",
      body: () => standardEvent("user.invited", { id: "usr_3", name: "Ada" }),
      eventType: "user.invited",
      category: "fact",
      content: "user.invited happened (usr_3): Ada",
    },
  ],
  // Every dotted type has a row (its suffix decides); a type that is not a dotted event type is not covered.
  lifecycles: [
    {
      name: "a completed event",
      before: [
        {
          body: () =>
            withField(
              standardEvent("export.failed", { id: "exp_7" }),
              "timestamp",
              "2026-11-20T09:00:00.000Z",
            ),
          category: "exception",
          closed: "resolved",
        },
      ],
      closing: { body: () => standardEvent("export.completed", { id: "exp_7" }), category: "fact" },
    },
    {
      name: "a type that ends its subject (ticket.closed)",
      before: [
        {
          body: () =>
            withField(standardEvent("ticket.failed", { id: "t_7" }), "timestamp", "2026-11-20T09:00:00.000Z"),
          category: "exception",
          closed: "resolved",
        },
      ],
      closing: { body: () => standardEvent("ticket.closed", { id: "t_7" }), category: "fact" },
    },
  ],
  unmapped: () => standardEvent("ping", { id: "x" }),
  more: ({ tenant, harness, clock, url }) => {
    test("a delivery signed by the standardwebhooks library is accepted, and its verifier accepts ours", async () => {
      const t = await tenant();
      const body = standardEvent("job.completed", { id: "job_1" });
      const signature = new Webhook(STANDARD_SECRET).sign("msg_lib_1", new Date(clock.now()), body);
      const headers = {
        "content-type": "application/json",
        "webhook-id": "msg_lib_1",
        "webhook-timestamp": String(Math.floor(clock.now() / 1000)),
        "webhook-signature": signature,
      };
      const res = await harness().call("POST", `/webhooks/standard/${t.tenant_id}`, { raw: body, headers });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
      const ours = standardSender.sign(body, { now: Date.now(), url: url(t.tenant_id) }) as {
        headers: Record<string, string>;
      };
      expect(new Webhook(STANDARD_SECRET).verify(body, ours.headers)).toMatchObject({
        type: "job.completed",
      });
    });
  },
});
