/**
 * The answers against a contract check's rule that are explained, each by a rule of the API the
 * document cannot state as a schema (docs/testing.md lists and justifies every one). An exception
 * matches narrowly: the operation, the check, and the problem's code or field.
 */
import type { RequestModel } from "./contract-model.ts";
import type { Operation } from "./operations.ts";

export interface Outcome {
  check: "positive" | "negative";
  op: Operation;
  model: RequestModel;
  status: number;
  /** The answer's body, as text. */
  body: string;
}

interface Exception {
  id: string;
  applies(o: Outcome): boolean;
}

/**
 * The problem document's `code` and error paths, when the answer is one; of a dashboard's error
 * page (HTML), the paths it lists (`<li><code>/path</code>: …`).
 */
export function problemOf(body: string): { code?: string; paths: string[] } {
  try {
    const p = JSON.parse(body) as { code?: string; errors?: Array<{ path?: string }> };
    return { code: p.code, paths: (p.errors ?? []).map((e) => e.path ?? "") };
  } catch {
    return { paths: [...body.matchAll(/<li><code>([^<]*)<\/code>/g)].map((m) => m[1]!) };
  }
}

const isWrite = (o: Outcome) => o.op.method === "POST" && /^\/memory\/[a-z]+s(\/batch)?$/.test(o.op.template);

/** A positive request refused 422 at a field (any index of a batch) with words of the refusal. */
function refusedAt(o: Outcome, field: RegExp, words: RegExp): boolean {
  if (o.check !== "positive" || o.status !== 422) return false;
  return problemOf(o.body).paths.some((p) => field.test(p)) && words.test(o.body);
}

/**
 * The description of the operation's window start (`from` or `from_day`, a query parameter or a
 * property of an inline body) says how it must stand to the end and that anything else is a 422.
 */
export function windowRulesDocumented(op: Operation): boolean {
  const param = op.params.find((p) => p.name === "from" || p.name === "from_day");
  const properties = (op.body?.schema.properties ?? {}) as Record<string, { description?: string }>;
  const description = String(param?.schema.description ?? properties.from?.description ?? "");
  return /(not after|before) `?to(_day)?`?/.test(description) && description.includes("(422 otherwise)");
}

const EXCEPTIONS: Exception[] = [
  {
    // State, not form: whether an id names an entry of this tenant, of the right category and time.
    id: "supersedes/corrects/decision_id naming no entry of this tenant that fits (the fields' descriptions)",
    applies: (o) =>
      isWrite(o) &&
      refusedAt(
        o,
        /\/(supersedes|corrects|decision_id)$/,
        /no such entry in this tenant|must name a decision of this tenant|must become valid after the entry it supersedes|already (corrected|superseded)/,
      ),
  },
  {
    // A rule between two fields, which JSON Schema cannot compare.
    id: "valid_to not after valid_from (the field's description)",
    applies: (o) => isWrite(o) && refusedAt(o, /\/valid_to$/, /valid_to must be after valid_from/),
  },
  {
    // Rules at any depth of a free-form object, or on its size as JSON text: the field's
    // description says them; a schema would have to be recursive (and cannot measure the text).
    id: "`data` with a `__proto__` key at some depth, or over 16 KiB as JSON (the field's description)",
    applies: (o) =>
      isWrite(o) &&
      refusedAt(o, /(^|\/entries\/[0-9]+)\/data(\/|$)/, /key not allowed|at most \d+ bytes as JSON/),
  },
  {
    id: "a token's roles must exist in the tenant's library (the field's description)",
    applies: (o) =>
      (o.op.key === "POST /admin/jwt/{tenant_id}" ||
        o.op.key === "POST /admin/dashboard/tenants/{tenant_id}/tokens") &&
      refusedAt(o, /^\/roles$/, /unknown role/),
  },
  {
    // State: the one id that confirms is the tenant's own, in the path (the field's description).
    id: "the delete form's confirmation is not this tenant's id (the field's description)",
    applies: (o) =>
      o.op.key === "POST /admin/dashboard/tenants/{tenant_id}/delete" &&
      refusedAt(o, /^\/confirm$/, /type the tenant(&#39;|')s id to confirm/),
  },
  {
    // A rule between two fields, which JSON Schema cannot compare.
    id: "a token's `unscoped` only with `subject` (the field's description)",
    applies: (o) =>
      o.op.key === "POST /admin/jwt/{tenant_id}" && refusedAt(o, /^\/unscoped$/, /only with subject/),
  },
  {
    id: "deleting the built-in role tenant_admin (422; the parameter's description)",
    applies: (o) =>
      o.check === "positive" &&
      o.op.key === "DELETE /admin/roles/{tenant_id}/{role_name}" &&
      o.status === 422 &&
      o.model.path.role_name === "tenant_admin",
  },
  {
    // Opaque: only a cursor the API answered is one (docs/api.md, "Paging").
    id: "a cursor this API did not return",
    applies: (o) => refusedAt(o, /^\/cursor$/, /not a cursor this API returned/),
  },
  {
    // Rules between two parameters (an order, a span), which JSON Schema cannot compare: explained
    // only where the operation's window start says them (issue 37: two did not).
    id: "a window whose ends are out of order, too long, or before year 0000 (the parameters' descriptions)",
    applies: (o) =>
      windowRulesDocumented(o.op) &&
      refusedAt(
        o,
        /^\/(from|to|from_day|to_day)$/,
        /after to|before to|must not be after|at most \d+ days|before year 0000/,
      ),
  },
  {
    // A rule between two fields of a message, and between a message and the one before it (or the
    // session's turn before it): the fields' descriptions say them (docs/conversations.md).
    id: "a conversation message without speaker or role, or going back in time (the fields' descriptions)",
    applies: (o) =>
      o.op.key === "POST /memory/conversations" &&
      refusedAt(o, /^\/messages\/[0-9]+\/(speaker|at)$/, /give `speaker` or `role`|goes back before/),
  },
  {
    // State: where the session ends, and what a stored position holds (the fields' descriptions).
    id: "a conversation's offset past its session's end, or another message at a stored position",
    applies: (o) =>
      o.check === "positive" &&
      o.op.key === "POST /memory/conversations" &&
      (refusedAt(o, /^\/offset$/, /the first new message must be at position/) ||
        (o.status === 409 && o.body.includes("holds another message"))),
  },
  {
    // Held unread while the source is paused (a positive request may have paused it): the form is
    // checked when the delivery is released, like any other.
    id: "a delivery to a paused source, held unread (202)",
    applies: (o) =>
      o.check === "negative" &&
      o.op.template === "/webhooks/{source}/{tenant_id}" &&
      o.status === 202 &&
      o.body.includes('"held"'),
  },
  {
    // The calendar's notification is its X-Goog-* headers; a JSON body that is not an Events
    // resource is ignored, as the body's description says (test/sources/calendar.test.ts).
    id: "a calendar notification whose body is not an Events resource, read from its headers (200)",
    applies: (o) =>
      o.check === "negative" &&
      o.op.template === "/webhooks/{source}/{tenant_id}" &&
      o.model.path.source === "calendar" &&
      o.status === 200,
  },
  {
    // One operation for 22 platforms: each reads its own native payload (docs/webhooks.md), which
    // the one request body of the document can only describe as JSON, a form or XML.
    id: "a webhook delivery that is not the source's own form (400)",
    applies: (o) =>
      o.check === "positive" && o.op.template === "/webhooks/{source}/{tenant_id}" && o.status === 400,
  },
];

/** The id of the exception that explains `o`, or undefined. */
export function explain(o: Outcome): string | undefined {
  return EXCEPTIONS.find((e) => e.applies(o))?.id;
}
