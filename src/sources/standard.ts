/**
 * `standard` (Standard Webhooks): `webhook-id`, `webhook-timestamp` and `webhook-signature:
 * v1,<base64>` (a space-separated list; any one valid), base64 HMAC-SHA256 of `id.timestamp.body`
 * keyed with the bytes of a `whsec_` secret, a 5-minute window. The message id dedupes. The table
 * is keyed by the type's suffix: `*.failed` → exception, `*.completed` → outcome, else fact; a type
 * that is not a dotted event type is ignored. An entry needs the type and a `data` (the spec
 * requires one) holding some value: a bare type says that something happened, not what.
 * `data.links` names objects of other sources the event is about, by their object keys
 * (`helpdesk:ticket:123`): its entry closes with them (docs/source-mappings.md, "Lifecycles").
 */
import { at, defineSource, type Event, nonEmpty, qualifiedObject, textAt } from "./kit/define-source.ts";
import { hmacScheme, payloads, signatures, whsecKey } from "./kit/signature.ts";

const REQUIRED = ["type", nonEmpty("data")];

const subject = (ev: Event) => textAt(ev, "data.id") ?? textAt(ev, "data.object_id");
const summary = (ev: Event) =>
  textAt(ev, "data.description") ??
  textAt(ev, "data.message") ??
  textAt(ev, "data.title") ??
  textAt(ev, "data.name");
/** Whom the event concerns, by the name people use (a customer's, a user's), else their e-mail. */
const concerns = (ev: Event) =>
  ["data.customer_name", "data.customer.name", "data.user.name", "data.email", "data.customer.email"]
    .map((path) => textAt(ev, path))
    .find((name) => name !== undefined);
const line = (ev: Event, what: string) => {
  const about = subject(ev);
  const said = summary(ev);
  const who = concerns(ev);
  const forWhom = who && who !== said ? ` for ${who}` : "";
  return `${textAt(ev, "type")!} ${what}${about ? ` (${about})` : ""}${forWhom}${said ? `: ${said}` : ""}.`;
};

/**
 * The objects of other sources the event is about, by their fully qualified keys in `data.links`
 * (`["helpdesk:ticket:123"]`, or one key): an escalation naming its ticket is resolved when the
 * ticket is solved. At most 8; what is not a `<source>:<object>` key is left out.
 */
const links = (ev: Event) => {
  const named = at(ev, "data.links");
  const keys = Array.isArray(named) ? named.slice(0, 8) : [named];
  return keys.map(qualifiedObject).filter((o) => o !== undefined);
};

/** Type suffixes that end what the event is about. */
const ENDS = /\.(closed|resolved|canceled|cancelled|done|ended|deleted)$/;

/** Standard Webhooks types are full-stop-delimited (`user.created`); anything else is not covered. */
function rowOf(type: string): string | undefined {
  if (!/^[\w-]+(\.[\w-]+)+$/.test(type)) return undefined;
  return type.endsWith(".failed") ? "failed" : type.endsWith(".completed") ? "completed" : "other";
}

export const standardSource = defineSource({
  id: "standard",
  secrets: ["STANDARD_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "STANDARD_WEBHOOK_SECRET",
    key: whsecKey,
    hash: "sha256",
    encoding: "base64",
    signatures: signatures.with(signatures.list("webhook-signature", " ", "v1,"), {
      id: "webhook-id",
      timestamp: "webhook-timestamp",
    }),
    payload: payloads.idTimestampBody,
    timestamp: { unit: "s", toleranceMs: 5 * 60_000 },
  }),
  eventId: (_ev, req) => req.headers.get("webhook-id"),
  eventType: (ev) => ev.type,
  row: rowOf,
  mappings: {
    failed: {
      category: "exception",
      required: REQUIRED,
      content: (ev) => line(ev, "failed"),
      fields: () => ({ severity: "high", status: "open" }),
      tags: (ev) => ["failed", ev.type],
      data: (ev) => ({ type: ev.type, data: at(ev, "data") }),
      object: subject,
      links,
      validFrom: (ev) => ev.timestamp,
    },
    completed: {
      category: "outcome",
      required: REQUIRED,
      content: (ev) => line(ev, "completed"),
      fields: () => ({ result: "success" }),
      tags: (ev) => ["completed", ev.type],
      data: (ev) => ({ type: ev.type, data: at(ev, "data") }),
      object: subject,
      // What completes closes its subject: the failure about it is resolved.
      lifecycle: "close",
      links,
      validFrom: (ev) => ev.timestamp,
    },
    other: {
      category: "fact",
      required: REQUIRED,
      content: (ev) => line(ev, "happened"),
      tags: (ev) => [ev.type],
      data: (ev) => ({ type: ev.type, data: at(ev, "data") }),
      // A type that ends its subject (`ticket.closed`, `subscription.canceled`) closes it.
      object: subject,
      lifecycle: (ev) => (ENDS.test(textAt(ev, "type") ?? "") ? "close" : undefined),
      links,
      validFrom: (ev) => ev.timestamp,
    },
  },
});
