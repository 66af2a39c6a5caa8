import { describe, expect, test } from "bun:test";
import { BadRequest } from "../../src/errors/domain-errors.ts";
import { dataSource as source } from "../../src/sources/data.ts";
import { catalogAuditRow } from "../fakes/data-events.ts";
import { context, onlyDraft, request, verifySync } from "./support.ts";

const TOKEN = "dtok_4f0c1e9a7b2d4c8e9f00112233445566";
const ctx = context({ DATA_WEBHOOK_TOKEN: TOKEN });

function events(body: unknown) {
  return source.parse(request(JSON.stringify(body), { authorization: `Bearer ${TOKEN}` }), ctx);
}

function mapOne(body: unknown) {
  const [ev] = events(body);
  return { ev: ev!, result: source.map(ev!, ctx) };
}

const transition = {
  event: "MODEL_VERSION_TRANSITIONED_STAGE",
  webhook_id: "c5596721253c4b429368cf6f4341b88a",
  event_timestamp: 1794000000000,
  model_name: "churn-model",
  version: "8",
  to_stage: "Production",
  from_stage: "Staging",
  text: "Passed the holdout evaluation.",
};

describe("data verification", () => {
  test("the bearer token must equal DATA_WEBHOOK_TOKEN", () => {
    expect(verifySync(source, request("{}", { authorization: `Bearer ${TOKEN}` }), ctx)).toEqual({
      ok: true,
    });
    expect(verifySync(source, request("{}", { authorization: `bearer ${TOKEN}` }), ctx)).toEqual({
      ok: true,
    });
    expect(verifySync(source, request("{}", { authorization: `Bearer ${TOKEN}x` }), ctx)).toEqual({
      ok: false,
      reason: "bad_token",
    });
    expect(verifySync(source, request("{}", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }), ctx).ok).toBe(
      false,
    );
    expect(verifySync(source, request("{}", { authorization: TOKEN }), ctx)).toEqual({
      ok: false,
      reason: "missing_token",
    });
    expect(verifySync(source, request("{}"), ctx)).toEqual({ ok: false, reason: "missing_token" });
    expect(verifySync(source, request("{}", { authorization: `Bearer ${TOKEN}` }), context({})).ok).toBe(
      false,
    );
  });
});

describe("data parsing", () => {
  test("one event or an array, with the documented event ids", () => {
    expect(events(transition)[0]!.event_id).toBe(
      "MODEL_VERSION_TRANSITIONED_STAGE:churn-model:8:1794000000000",
    );
    const list = events([
      {
        event_type: "jobs.on_success",
        workspace_id: "123",
        run: { run_id: 456 },
        job: { job_id: 9, name: "nightly" },
      },
      {
        event: "alert_state_change",
        alert: { id: "a-1", name: "Revenue dip", state: "TRIGGERED" },
        timestamp: "2026-11-21T09:00:00Z",
      },
      { event: "alert_state_change", alert: { id: "a-1", name: "Revenue dip", state: "OK" } },
      {
        event_id: "audit-77",
        event_time: "2026-11-21T08:00:00.000Z",
        service_name: "unityCatalog",
        action_name: "getTable",
      },
      { something: "else" },
    ]);
    expect(list.map((e) => e.event_id)).toEqual([
      "jobs.on_success:456",
      "alert:a-1:2026-11-21T09:00:00Z",
      "alert:a-1:OK",
      "audit-77",
      expect.stringMatching(/^unknown:[0-9a-f]{32}:4$/),
    ]);
    expect(list[4]!.event_type).toBe("unknown");
  });

  test("unknown bodies get a stable id so redeliveries dedupe", () => {
    expect(events({ a: 1 })[0]!.event_id).toBe(events({ a: 1 })[0]!.event_id);
    expect(events({ a: 1 })[0]!.event_id).not.toBe(events({ a: 2 })[0]!.event_id);
  });

  test("only non-JSON and scalar bodies fail to parse", () => {
    for (const body of ["", "nope", "42", '"x"', "null", "true"]) {
      expect(() => source.parse(request(body), ctx)).toThrow(BadRequest);
    }
    // Absurd nesting is refused before it can slow down anything downstream.
    const nested = (depth: number) => `${"[".repeat(depth - 1)}{}${"]".repeat(depth - 1)}`;
    expect(source.parse(request(nested(64)), ctx)).toHaveLength(1);
    expect(() => source.parse(request(nested(65)), ctx)).toThrow(/deeper than 64/);
    expect(events([1, "x", null])).toHaveLength(3);
    for (const ev of events([1, "x", null]))
      expect(source.map(ev, ctx)).toMatchObject({ ok: false, reason: "unmapped_event" });
  });
});

describe("data mapping", () => {
  test("registry stage transition → decision", () => {
    const { result, ev } = mapOne(transition);
    const { draft, object_key, supersede_previous } = onlyDraft(result);
    expect(draft).toMatchObject({
      category: "decision",
      stage: "Production",
      rationale: "Passed the holdout evaluation.",
      valid_from: new Date(1794000000000).toISOString(),
      source: { system: "data", event_id: ev.event_id, event_type: "MODEL_VERSION_TRANSITIONED_STAGE" },
    });
    expect(draft.content).toBe("Model churn-model version 8 was promoted from Staging to Production.");
    expect(object_key).toBe("data:model-stage:churn-model:8");
    expect(supersede_previous).toBe(true);
  });

  test("registry version created → fact; other registry events unmapped; a transition without to_stage is missing_field", () => {
    const created = onlyDraft(
      mapOne({ ...transition, event: "MODEL_VERSION_CREATED", to_stage: undefined }).result,
    );
    expect(created.draft).toMatchObject({
      category: "fact",
      content: expect.stringContaining("churn-model version 8 was registered"),
    });
    expect(mapOne({ ...transition, event: "COMMENT_CREATED" }).result).toMatchObject({
      ok: false,
      reason: "unmapped_event",
    });
    expect(mapOne({ ...transition, to_stage: undefined }).result).toMatchObject({
      ok: false,
      reason: "missing_field",
      detail: "to_stage",
    });
  });

  test("job success → fact with duration; failure → exception with the error", () => {
    const run = { run_id: 456, start_time: 1794000000000, end_time: 1794000093500 };
    const ok = onlyDraft(
      mapOne({ event_type: "jobs.on_success", workspace_id: "1", run, job: { job_id: 9, name: "nightly" } })
        .result,
    );
    expect(ok.draft).toMatchObject({
      category: "fact",
      content: "Job nightly run 456 succeeded in 93.5 s.",
      valid_from: new Date(1794000093500).toISOString(),
    });
    expect(ok.draft.data).toMatchObject({ duration_s: 93.5, result: "success" });
    const failedRun = { ...run, state: { state_message: "Task ingest failed: OOM" } };
    const failed = onlyDraft(
      mapOne({
        event_type: "jobs.on_failure",
        workspace_id: "1",
        run: failedRun,
        job: { job_id: 9, name: "nightly" },
      }).result,
    );
    expect(failed.draft).toMatchObject({
      category: "exception",
      severity: "high",
      status: "open",
      content: "Job nightly run 456 failed: Task ingest failed: OOM",
    });
    expect(mapOne({ event_type: "jobs.on_start", run: { run_id: 1 }, job: {} }).result).toMatchObject({
      ok: false,
      reason: "unmapped_event",
    });
  });

  test("SQL alert TRIGGERED → exception, other states → fact", () => {
    const alert = {
      id: "a-1",
      name: "Revenue dip",
      state: "TRIGGERED",
      condition: { op: "LESS_THAN", threshold: { value: { double_value: 1000 } } },
    };
    const triggered = onlyDraft(
      mapOne({ event: "alert_state_change", alert, query: { id: "q", name: "daily revenue" } }).result,
    );
    expect(triggered.draft).toMatchObject({ category: "exception", severity: "high" });
    expect(triggered.draft.content).toBe(
      "Alert Revenue dip triggered on query daily revenue (threshold LESS_THAN 1000 crossed).",
    );
    const okState = onlyDraft(
      mapOne({ event: "alert_state_change", alert: { ...alert, state: "OK" } }).result,
    );
    expect(okState.draft).toMatchObject({
      category: "fact",
      content: "Alert Revenue dip is now in state OK.",
    });
  });

  test("catalog audit row → fact", () => {
    const row = catalogAuditRow("audit-77", {
      event_time: "2026-11-21T08:00:00+02:00",
      action_name: "deleteTable",
      user_identity: { email: "ops@example.com" },
    });
    const { draft } = onlyDraft(mapOne(row).result);
    expect(draft).toMatchObject({
      category: "fact",
      content: "ops@example.com performed deleteTable in the data catalog on main.sales.orders.",
      valid_from: "2026-11-21T06:00:00.000Z",
      source: { event_id: "audit-77", event_type: "unityCatalog.deleteTable" },
    });
  });

  test("huge attribute values are cut so data stays within 16 KiB", () => {
    const row = {
      event_id: "big",
      service_name: "unityCatalog",
      action_name: "x",
      user_identity: { email: "ops@example.com" },
      request_params: { blob: "y".repeat(100_000) },
    };
    const { draft } = onlyDraft(mapOne(row).result);
    expect(Buffer.byteLength(JSON.stringify(draft.data))).toBeLessThanOrEqual(16 * 1024);
  });
});
