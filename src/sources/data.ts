/**
 * `data`: a data platform's notifications (SOURCES.md): model registry webhooks, job run
 * notifications, SQL alerts and catalog audit rows pushed by a scheduled job. One event or an
 * array; the kind is told apart by its fields. Authenticated by a per-tenant bearer token.
 */
import { BadRequest } from "../errors/domain-errors.ts";
import { clip, finish, isoFrom, numberOf, sourceOf, tagsOf, text } from "./kit/draft.ts";
import { isRecord, parseJsonBody } from "./kit/request.ts";
import { anyOf, missingField, type Required } from "./kit/required.ts";
import { sha256Hex, tokenScheme } from "./kit/signature.ts";
import type { IngestDraft, MapResult, SourceEvent, SourceModule, WebhookRequest } from "./types.ts";

const ID = "data";
/** Far above any real batch; bounds the work one delivery can cause. */
const MAX_EVENTS = 1000;

type Body = Record<string, unknown>;
type Kind = "registry" | "job_run" | "sql_alert" | "catalog_audit" | "unknown";

const verify = tokenScheme({ secret: "DATA_WEBHOOK_TOKEN" });

/** Which of the four documented bodies this is; anything else is `unknown` (dead-lettered by map). */
export function kindOf(body: unknown): Kind {
  if (!isRecord(body)) return "unknown";
  if (body.event === "alert_state_change" && isRecord(body.alert) && text(body.alert.id)) return "sql_alert";
  if (typeof body.event_type === "string" && body.event_type.startsWith("jobs.") && isRecord(body.run)) {
    if (text(body.run.run_id)) return "job_run";
  }
  if (body.service_name === "unityCatalog" && text(body.event_id) && text(body.action_name))
    return "catalog_audit";
  const registryIds = [body.event, body.model_name, body.version, body.event_timestamp].every((v) => text(v));
  return registryIds ? "registry" : "unknown";
}

function registryId(b: Body): string {
  return `${text(b.event)}:${text(b.model_name)}:${text(b.version)}:${text(b.event_timestamp)}`;
}

function alertId(b: Body): string {
  const alert = isRecord(b.alert) ? b.alert : {};
  const when = text(b.timestamp) ?? text(alert.state_changed_at) ?? text(alert.state) ?? "unknown";
  return `alert:${text(alert.id)}:${when}`;
}

/** An id for a body we cannot classify: the same bytes give the same ids, so redeliveries dedupe. */
function unknownId(bodyHash: string, index: number): string {
  return `unknown:${bodyHash}:${index}`;
}

function eventOf(body: unknown, bodyHash: string, index: number): SourceEvent {
  const b = isRecord(body) ? body : {};
  switch (kindOf(body)) {
    case "registry":
      return {
        event_id: clip(registryId(b), 512),
        event_type: clip(String(text(b.event)), 128),
        payload: body,
      };
    case "job_run":
      return {
        event_id: clip(`${b.event_type}:${text((b.run as Body).run_id)}`, 512),
        event_type: clip(String(b.event_type), 128),
        payload: body,
      };
    case "sql_alert":
      return { event_id: clip(alertId(b), 512), event_type: "alert_state_change", payload: body };
    case "catalog_audit":
      return {
        event_id: clip(String(text(b.event_id)), 512),
        event_type: clip(`unityCatalog.${text(b.action_name)}`, 128),
        payload: body,
      };
    default:
      return { event_id: unknownId(bodyHash, index), event_type: "unknown", payload: body };
  }
}

function parse(req: WebhookRequest): SourceEvent[] {
  const body = parseJsonBody(req.rawBody);
  if (!isRecord(body) && !Array.isArray(body))
    throw new BadRequest("body must be a JSON object or an array of objects");
  const list: unknown[] = Array.isArray(body) ? body : [body];
  if (list.length > MAX_EVENTS) throw new BadRequest(`a delivery carries at most ${MAX_EVENTS} events`);
  const bodyHash = sha256Hex(req.rawBody).slice(0, 32);
  return list.map((item, i) => eventOf(item, bodyHash, i));
}

// ── mapping ─────────────────────────────────────────────────────────────────────────────────

/**
 * What each mapped body's entry is built from (kit/required.ts), by registry event or body kind:
 * the model version (and the stage it moved to), the run and its job, the alert and its state, the
 * audited action and who did it.
 */
const REQUIRED = {
  MODEL_VERSION_CREATED: ["model_name", "version"],
  MODEL_VERSION_TRANSITIONED_STAGE: ["model_name", "version", "to_stage"],
  job_run: ["run.run_id", anyOf("job.name", "job.job_id")],
  sql_alert: ["alert.id", "alert.state"],
  catalog_audit: ["event_id", "action_name", anyOf("user_identity.email", "user_identity.subject_name")],
} satisfies Record<string, readonly Required[]>;

/** The dead letter of a body lacking what `rules` require, or undefined. */
function lacking(b: Body, rules: readonly Required[]): MapResult | undefined {
  const missing = missingField(b, rules);
  return missing === undefined ? undefined : { ok: false, reason: "missing_field", detail: missing };
}

function one(draft: IngestDraft): MapResult {
  return { ok: true, drafts: [draft] };
}

function mapRegistry(b: Body, event: SourceEvent): MapResult {
  if (b.event !== "MODEL_VERSION_CREATED" && b.event !== "MODEL_VERSION_TRANSITIONED_STAGE")
    return { ok: false, reason: "unmapped_event", detail: event.event_type };
  const lacks = lacking(b, REQUIRED[b.event]);
  if (lacks) return lacks;
  const model = String(text(b.model_name));
  const version = String(text(b.version));
  const data = { model_name: model, version, webhook_id: b.webhook_id, text: text(b.text) };
  const valid_from = isoFrom(b.event_timestamp);
  const source = sourceOf(ID, event);
  if (b.event === "MODEL_VERSION_CREATED") {
    const content = `Model ${model} version ${version} was registered.${data.text ? ` ${data.text}` : ""}`;
    const draft = finish({
      category: "fact",
      content,
      tags: tagsOf("data", "model_registry"),
      data,
      valid_from,
      source,
    });
    return one({ draft, object_key: `${ID}:model:${model}:${version}` });
  }
  const to = String(text(b.to_stage));
  const from = text(b.from_stage);
  const draft = finish({
    category: "decision",
    content: `Model ${model} version ${version} was promoted${from ? ` from ${from}` : ""} to ${to}.`,
    stage: clip(to, 128),
    chosen: clip(to, 4096),
    rationale: data.text ? clip(data.text, 8192) : undefined,
    tags: tagsOf("data", "model_registry"),
    data: { ...data, from_stage: from, to_stage: to },
    valid_from,
    source,
  });
  // One stage decision per model version is current: a later transition supersedes it.
  return one({ draft, object_key: `${ID}:model-stage:${model}:${version}`, supersede_previous: true });
}

function durationSeconds(run: Body): number | undefined {
  const ms =
    numberOf(run.run_duration) ??
    numberOf(run.execution_duration) ??
    (() => {
      const start = numberOf(run.start_time);
      const end = numberOf(run.end_time);
      return start !== undefined && end !== undefined && end >= start ? end - start : undefined;
    })();
  return ms === undefined ? undefined : Math.round(ms) / 1000;
}

function errorOf(run: Body): string | undefined {
  const state = isRecord(run.state) ? run.state : {};
  const status =
    isRecord(run.status) && isRecord(run.status.termination_details) ? run.status.termination_details : {};
  return text(state.state_message) ?? text(status.message) ?? text(run.error) ?? text(run.state_message);
}

function mapJobRun(b: Body, event: SourceEvent): MapResult {
  if (b.event_type !== "jobs.on_success" && b.event_type !== "jobs.on_failure")
    return { ok: false, reason: "unmapped_event", detail: event.event_type };
  const lacks = lacking(b, REQUIRED.job_run);
  if (lacks) return lacks;
  const run = b.run as Body;
  const job = isRecord(b.job) ? b.job : {};
  const name = text(job.name) ?? `job ${text(job.job_id)}`;
  const runId = String(text(run.run_id));
  const duration = durationSeconds(run);
  const data = {
    job_id: job.job_id,
    job_name: text(job.name),
    run_id: runId,
    workspace_id: b.workspace_id,
    duration_s: duration,
    run_page_url: text(run.run_page_url),
  };
  const valid_from = isoFrom(run.end_time) ?? isoFrom(run.start_time);
  const source = sourceOf(ID, event);
  const object_key = `${ID}:job:${text(job.job_id) ?? name}`;
  if (b.event_type === "jobs.on_success") {
    const took = duration !== undefined ? ` in ${duration} s` : "";
    const content = `Job ${name} run ${runId} succeeded${took}.`;
    const draft = finish({
      category: "fact",
      content,
      tags: tagsOf("data", "job", "success"),
      data: { ...data, result: "success" },
      valid_from,
      source,
    });
    return one({ draft, object_key });
  }
  const error = errorOf(run);
  const draft = finish({
    category: "exception",
    content: `Job ${name} run ${runId} failed${error ? `: ${error}` : "."}`,
    severity: "high",
    status: "open",
    tags: tagsOf("data", "job", "failure"),
    data: { ...data, result: "failure", error },
    valid_from,
    source,
  });
  return one({ draft, object_key });
}

/** The alert's condition as text, e.g. "LESS_THAN 1000" (values come wrapped: {double_value: 1000}). */
function thresholdOf(alert: Body): string | undefined {
  const condition = isRecord(alert.condition)
    ? alert.condition
    : isRecord(alert.options)
      ? alert.options
      : {};
  const op = text(condition.op);
  const raw = isRecord(condition.threshold) ? condition.threshold.value : condition.value;
  const threshold = isRecord(raw)
    ? Object.values(raw)
        .map(text)
        .find((v) => v !== undefined)
    : text(raw);
  return op || threshold ? [op, threshold].filter(Boolean).join(" ") : undefined;
}

function mapAlert(b: Body, event: SourceEvent): MapResult {
  const lacks = lacking(b, REQUIRED.sql_alert);
  if (lacks) return lacks;
  const alert = b.alert as Body;
  const query = isRecord(b.query) ? b.query : {};
  const name = text(alert.name) ?? `alert ${text(alert.id)}`;
  const state = String(text(alert.state)).toUpperCase();
  const threshold = thresholdOf(alert);
  const data = {
    alert_id: text(alert.id),
    alert_name: text(alert.name),
    state,
    threshold,
    query_id: text(query.id),
    query_name: text(query.name),
  };
  const valid_from = isoFrom(b.timestamp) ?? isoFrom(alert.state_changed_at);
  const source = sourceOf(ID, event);
  const object_key = `${ID}:alert:${text(alert.id)}`;
  if (state === "TRIGGERED") {
    const on = data.query_name ? ` on query ${data.query_name}` : "";
    const draft = finish({
      category: "exception",
      content: `Alert ${name} triggered${on}${threshold ? ` (threshold ${threshold} crossed)` : ""}.`,
      severity: "high",
      status: "open",
      tags: tagsOf("data", "alert"),
      data,
      valid_from,
      source,
    });
    return one({ draft, object_key });
  }
  const draft = finish({
    category: "fact",
    content: `Alert ${name} is now in state ${state}.`,
    tags: tagsOf("data", "alert"),
    data,
    valid_from,
    source,
  });
  return one({ draft, object_key });
}

function mapAudit(b: Body, event: SourceEvent): MapResult {
  const lacks = lacking(b, REQUIRED.catalog_audit);
  if (lacks) return lacks;
  const identity = b.user_identity as Body;
  const who = String(text(identity.email) ?? text(identity.subject_name));
  const action = String(text(b.action_name));
  const params = isRecord(b.request_params) ? b.request_params : {};
  const target =
    text(params.full_name_arg) ??
    text(params.name) ??
    text(params.full_name) ??
    text(params.securable_full_name);
  const response = isRecord(b.response) ? b.response : {};
  const draft = finish({
    category: "fact",
    content: `${who} performed ${action} in the data catalog${target ? ` on ${target}` : ""}.`,
    tags: tagsOf("data", "catalog_audit"),
    data: {
      user: who,
      action,
      target,
      status_code: response.status_code,
      error: text(response.error_message),
      request_params: params,
    },
    valid_from: isoFrom(b.event_time),
    source: sourceOf(ID, event),
  });
  return one({ draft });
}

function map(event: SourceEvent): MapResult {
  const b = event.payload;
  switch (kindOf(b)) {
    case "registry":
      return mapRegistry(b as Body, event);
    case "job_run":
      return mapJobRun(b as Body, event);
    case "sql_alert":
      return mapAlert(b as Body, event);
    case "catalog_audit":
      return mapAudit(b as Body, event);
    default:
      return { ok: false, reason: "unmapped_event", detail: "unrecognised body" };
  }
}

export const dataSource: SourceModule = {
  id: ID,
  requiredSecrets: ["DATA_WEBHOOK_TOKEN"],
  optionalSecrets: [],
  verify,
  parse,
  map,
};
