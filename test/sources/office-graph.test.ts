import { expect, test } from "bun:test";
import {
  changeNotification,
  GRAPH_CLIENT_STATE,
  graphDelivery,
  lifecycleNotification,
  officeGraphSender,
  withClientState,
} from "../fakes/senders/office-graph.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const USER = "3c1f6e1a-8d2b-4c55-a1e9-5f0b7d2c9a41";
const TOKEN =
  "Validation: Testing client application reachability for subscription Request-Id: 6d3b5f6a-1e2f-4f5b-9a7c-0c1d2e3f4a5b";

describeSource({
  sender: officeGraphSender,
  mapped: [
    {
      name: "mail message created",
      body: () => graphDelivery(changeNotification("Message", "created", { id: "AAMkMSG1" })),
      eventType: "message.created",
      category: "fact",
      content: `Mail message AAMkMSG1 was received for user ${USER}; Graph serves it at https://graph.microsoft.com/v1.0/Users/${USER}/Messages/AAMkMSG1.`,
      fields: {
        tags: ["office_graph", "mail", "message_created"],
        data: { item_id: "AAMkMSG1", user: USER, odata_type: "#Microsoft.Graph.Message" },
      },
    },
    {
      name: "calendar event created",
      body: () => graphDelivery(changeNotification("Event", "created", { id: "AAMkEVT1" })),
      eventType: "event.created",
      category: "workflow",
      content: `Calendar event AAMkEVT1 was created for user ${USER}`,
      fields: { tags: ["office_graph", "calendar", "event_created"] },
    },
    {
      name: "calendar event updated",
      body: () => graphDelivery(changeNotification("Event", "updated", { id: "AAMkEVT2" })),
      eventType: "event.updated",
      category: "workflow",
      content: `Calendar event AAMkEVT2 was updated for user ${USER}`,
    },
    {
      name: "subscription removed (lifecycle)",
      body: () => graphDelivery(lifecycleNotification("subscriptionRemoved", "5d2c1b0a-sub-removed")),
      eventType: "subscriptionRemoved",
      category: "exception",
      content: "Graph removed subscription 5d2c1b0a-sub-removed",
      fields: { severity: "high", status: "open", data: { subscription_id: "5d2c1b0a-sub-removed" } },
    },
  ],
  unmapped: () => graphDelivery(lifecycleNotification("reauthorizationRequired")),
  more: ({ tenant, deliver, post, harness }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;
    const validation = (token: string) => ({
      body: "",
      headers: { "content-type": "text/plain; charset=utf-8" },
      query: `?validationToken=${encodeURIComponent(token)}`,
    });

    test("subscription validation: the decoded token is echoed as text/plain, nothing written", async () => {
      const t = await tenant();
      const res = await post(t.tenant_id, validation(TOKEN));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/plain");
      expect(await res.text()).toBe(TOKEN);
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("subscription validation for a tenant without the clientState → 503", async () => {
      const t = await harness().createTenant();
      await expectProblem(await post(t.tenant_id, validation(TOKEN)), 503, "secret_missing");
    });

    test("several notifications in one delivery each become an entry", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        graphDelivery(
          changeNotification("Message", "created"),
          changeNotification("Event", "updated"),
          lifecycleNotification("subscriptionRemoved"),
          lifecycleNotification("missed"),
        ),
      );
      expect(summary).toMatchObject({ accepted: 3, duplicates: 0, dead_lettered: [], ignored: 1 });
      const [fact, workflow, exception] = summary.entries;
      await readEntry(harness(), t.token, "fact", fact!);
      await readEntry(harness(), t.token, "workflow", workflow!);
      await readEntry(harness(), t.token, "exception", exception!);
    });

    test("one notification whose clientState differs makes the whole delivery a 401", async () => {
      const t = await tenant();
      const good = withClientState(
        graphDelivery(changeNotification("Message", "created"), changeNotification("Event", "created")),
        GRAPH_CLIENT_STATE,
      );
      const parsed = JSON.parse(good) as { value: Array<Record<string, unknown>> };
      parsed.value[1]!.clientState = "forged-client-state";
      const res = await post(t.tenant_id, {
        body: JSON.stringify(parsed),
        headers: { "content-type": "application/json" },
      });
      await expectProblem(res, 401, "unauthorized");
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("two updates of one event differ (new etag); the same notification again is a duplicate", async () => {
      const t = await tenant();
      const subscriptionId = "sub-two-updates";
      const first = graphDelivery(changeNotification("Event", "updated", { subscriptionId, id: "EVT9" }));
      const second = graphDelivery(changeNotification("Event", "updated", { subscriptionId, id: "EVT9" }));
      expect((await deliver(t.tenant_id, first)).accepted).toBe(1);
      expect((await deliver(t.tenant_id, second)).accepted).toBe(1);
      expect((await deliver(t.tenant_id, first)).duplicates).toBe(1);
    });

    test("a mail notification naming no item is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const notification = changeNotification("Message", "created", { subscriptionId: "sub-no-item" });
      delete notification.resource;
      notification.resourceData = { "@odata.type": "#Microsoft.Graph.Message", "@odata.etag": 'W/"E1"' };
      const summary = await deliver(t.tenant_id, graphDelivery(notification));
      expect(summary).toMatchObject({
        accepted: 0,
        entries: [],
        dead_lettered: ['sub-no-item:created::W/"E1"'],
      });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead!.last_error).toContain("missing_field");
      expect(await entryCount(t.tenant_id)).toBe(0);
      // The clientState is Graph's credential: checked, then kept with no stored notification.
      expect(dead!.payload).toMatchObject({ subscriptionId: "sub-no-item", changeType: "created" });
      expect(dead!.payload).not.toHaveProperty("clientState");
      expect(JSON.stringify(dead)).not.toContain(GRAPH_CLIENT_STATE);
    });
  },
});
