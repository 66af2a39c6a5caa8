import { expect, test } from "bun:test";
import { rows, warehouseRow, warehouseSender, wrapped } from "../fakes/senders/warehouse.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const decisionRow = (fields: Record<string, unknown> = {}) =>
  warehouseRow("decision", {
    content: "Renewal of Acme Corp approved at the enterprise tier",
    status: "open",
    rationale: "Usage grew 40% quarter over quarter",
    options: ["pro", "enterprise"],
    chosen: "enterprise",
    amount: "120000.50",
    currency: "usd",
    stage: "approved",
    tags: ["renewals", "acme"],
    data: { account_id: "acc_42", region: "EMEA" },
    agent_id: "agent-renewals",
    valid_to: "2027-11-21T00:00:00Z",
    ...fields,
  });

describeSource({
  sender: warehouseSender,
  mapped: [
    {
      name: "a decision row",
      body: () => rows(decisionRow()),
      eventType: "decision",
      category: "decision",
      content: "Renewal of Acme Corp approved at the enterprise tier",
      fields: {
        status: "open",
        rationale: "Usage grew 40% quarter over quarter",
        options: ["pro", "enterprise"],
        chosen: "enterprise",
        amount: 120000.5,
        currency: "USD",
        stage: "approved",
        tags: ["warehouse", "renewals", "acme"],
        data: { account_id: "acc_42", region: "EMEA" },
        agent_id: "agent-renewals",
        valid_from: "2026-11-21T09:00:00.000Z",
        valid_to: "2027-11-21T00:00:00.000Z",
      },
    },
    {
      name: "an exception row",
      body: () =>
        rows(
          warehouseRow("exception", {
            content: "Nightly ETL for orders failed",
            severity: "HIGH",
            status: "open",
          }),
        ),
      eventType: "exception",
      category: "exception",
      content: "Nightly ETL for orders failed",
      fields: { severity: "high", status: "open" },
    },
    {
      name: "a fact row",
      body: () => rows(warehouseRow("fact", { content: "Acme Corp has 412 active seats" })),
      eventType: "fact",
      category: "fact",
      content: "Acme Corp has 412 active seats",
    },
    {
      name: "a workflow row",
      body: () =>
        rows(
          warehouseRow("workflow", {
            content: "Quarter-end close",
            steps: '["reconcile accounts","review accruals","sign off"]',
          }),
        ),
      eventType: "workflow",
      category: "workflow",
      content: "Quarter-end close",
      fields: { steps: ["reconcile accounts", "review accruals", "sign off"] },
    },
    {
      name: "a relationship row",
      body: () =>
        rows(
          warehouseRow("relationship", {
            content: "Dana Scully manages the Acme Corp account",
            subject: "Dana Scully",
            predicate: "manages",
            object: "Acme Corp",
          }),
        ),
      eventType: "relationship",
      category: "relationship",
      content: "Dana Scully manages the Acme Corp account",
      fields: { subject: "Dana Scully", predicate: "manages", object: "Acme Corp" },
    },
    {
      name: "an outcome row (no decision to resolve)",
      body: () =>
        rows(
          warehouseRow("outcome", {
            content: "Acme renewal signed",
            result: "success",
            amount: 120000,
            currency: "USD",
          }),
        ),
      eventType: "outcome",
      category: "fact",
      content: "Acme renewal signed",
      fields: {
        tags: ["outcome", "warehouse"],
        data: { result: "success", amount: 120000, currency: "USD" },
      },
    },
  ],
  lifecycles: [
    {
      name: "a row closing its object_ref (lifecycle: close)",
      before: [
        {
          body: () =>
            rows(
              warehouseRow("decision", {
                content: "Acme renewal in negotiation",
                object_ref: "deal-77",
                lifecycle: "state",
                valid_from: "2026-10-01T00:00:00Z",
              }),
            ),
          category: "decision",
          closed: "ended and resolved",
        },
      ],
      closing: {
        body: () =>
          rows(
            warehouseRow("exception", {
              content: "Acme renewal lost to a competitor",
              object_ref: "deal-77",
              lifecycle: "close",
              valid_from: "2026-10-20T00:00:00Z",
            }),
          ),
        category: "exception",
      },
    },
  ],
  unmapped: () => rows(warehouseRow("metric", { content: "daily active users: 1,204" })),
  more: ({ tenant, deliver, harness }) => {
    test("{rows: [...]} with several rows: each kind its entry, another kind ignored", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        wrapped(
          warehouseRow("fact", { content: "Plan prices rose 5%", tags: "pricing, 2026" }),
          warehouseRow("Exception", { content: "Invoice sync lagging", severity: "medium" }),
          warehouseRow("metric", { content: "not an entry" }),
        ),
      );
      expect(summary).toMatchObject({ accepted: 2, dead_lettered: [], ignored: 1 });
      const fact = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(fact.tags).toEqual(["warehouse", "pricing", "2026"]);
      const exception = await readEntry(harness(), t.token, "exception", summary.entries[1]!);
      expect(exception.source).toMatchObject({ system: "warehouse", event_type: "Exception" });
    });

    test("an outcome row with the object_ref of a decision row resolves that decision", async () => {
      const t = await tenant();
      const decision = await deliver(t.tenant_id, rows(decisionRow({ object_ref: "deal:42" })));
      const outcome = await deliver(
        t.tenant_id,
        rows(
          warehouseRow("outcome", { content: "Deal 42 closed", result: "success", object_ref: "deal:42" }),
        ),
      );
      const entry = await readEntry(harness(), t.token, "outcome", outcome.entries[0]!);
      expect(entry).toMatchObject({ decision_id: decision.entries[0], result: "success" });
      expect((await readEntry(harness(), t.token, "decision", decision.entries[0]!)).status).toBe("resolved");
    });

    test("an outcome row naming its decision_id links to it directly", async () => {
      const t = await tenant();
      const decision = await deliver(t.tenant_id, rows(decisionRow()));
      const outcome = await deliver(
        t.tenant_id,
        rows(
          warehouseRow("outcome", {
            content: "Renewal lost",
            result: "Failure",
            decision_id: decision.entries[0],
          }),
        ),
      );
      const entry = await readEntry(harness(), t.token, "outcome", outcome.entries[0]!);
      expect(entry).toMatchObject({ decision_id: decision.entries[0], result: "failure" });
    });

    test("rows missing what their category needs are dead-lettered as missing_field", async () => {
      const t = await tenant();
      const noContent = warehouseRow("fact", { content: "  " });
      const noPredicate = warehouseRow("relationship", { content: "x", subject: "A", object: "B" });
      const noResult = warehouseRow("outcome", { content: "Deal closed" });
      const summary = await deliver(t.tenant_id, rows(noContent, noPredicate, noResult));
      expect(summary).toMatchObject({
        accepted: 0,
        entries: [],
        dead_lettered: [noContent.event_id, noPredicate.event_id, noResult.event_id],
      });
      const errors = (await deadLetters(harness(), t.tenant_id)).map((d) => [d.event_id, d.last_error]);
      expect(new Map(errors as Array<[string, string]>)).toEqual(
        new Map([
          [noContent.event_id as string, "missing_field: content"],
          [noPredicate.event_id as string, "missing_field: predicate"],
          [noResult.event_id as string, "missing_field: result"],
        ]),
      );
    });

    test("a row whose values its category refuses (a severity that is none) is dead-lettered", async () => {
      const t = await tenant();
      const row = warehouseRow("exception", { content: "Disk full", severity: "urgent" });
      const summary = await deliver(t.tenant_id, rows(row));
      expect(summary.dead_lettered).toEqual([row.event_id as string]);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead!.last_error).toContain("invalid_draft");
    });

    test("JSON columns exported as text are read as the values they encode", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        rows(warehouseRow("fact", { content: "Churn risk scored", data: '{"score":0.82,"model":"v3"}' })),
      );
      const fact = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(fact.data).toEqual({ score: 0.82, model: "v3" });
    });
  },
});
