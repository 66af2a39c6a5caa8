/**
 * `esign` (modelled on DocuSign Connect, JSON format): `X-DocuSign-Signature-1..N`, one base64
 * HMAC-SHA256 of the body per active Connect key; any one valid passes (key rotation). No
 * timestamp. Connect sends no delivery id and retries carry a new `retryCount`: the event, the
 * envelope and `generatedDateTime` identify an event. Sent envelopes are workflows; a completed
 * envelope is the outcome of its envelope (a fact tagged `outcome`, as no decision precedes it).
 */
import { anyOf, at, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { clip, nameAndEmail } from "./kit/draft.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const summary = (ev: Event) => at(ev, "data.envelopeSummary");
const envelopeId = (ev: Event) => textAt(ev, "data.envelopeId") ?? textAt(summary(ev), "envelopeId");
const subject = (ev: Event) => textAt(summary(ev), "emailSubject");

/** The recipient kinds of an envelope, as Connect names their lists. */
const ROLES: ReadonlyArray<[string, string]> = [
  ["signers", "signer"],
  ["inPersonSigners", "in-person signer"],
  ["certifiedDeliveries", "certified delivery"],
  ["agents", "agent"],
  ["editors", "editor"],
  ["intermediaries", "intermediary"],
  ["witnesses", "witness"],
  ["carbonCopies", "cc"],
];
const MAX_RECIPIENTS = 50;

interface Recipient {
  role: string;
  name?: string;
  email?: string;
  status?: string;
  order: number;
  record: unknown;
}

function recipients(ev: Event): Recipient[] {
  const out: Recipient[] = [];
  for (const [list, role] of ROLES) {
    const items = at(summary(ev), `recipients.${list}`);
    if (!Array.isArray(items)) continue;
    for (const item of items.slice(0, MAX_RECIPIENTS)) {
      out.push({
        role,
        name: textAt(item, "name"),
        email: textAt(item, "email"),
        status: textAt(item, "status"),
        order: Number(textAt(item, "routingOrder") ?? 1) || 1,
        record: item,
      });
    }
  }
  return out.sort((a, b) => a.order - b.order).slice(0, MAX_RECIPIENTS);
}

const who = (r: { name?: string; email?: string }) => nameAndEmail(r.name, r.email) ?? "a recipient";

const sender = (ev: Event) => {
  const name = textAt(summary(ev), "sender.userName");
  const email = textAt(summary(ev), "sender.email");
  return name || email ? who({ name, email }) : undefined;
};

/** Every mapping is about one envelope: Connect names it in `data` or in its summary. */
const REQUIRED = [anyOf("data.envelopeId", "data.envelopeSummary.envelopeId")];

/** `envelope "Please DocuSign: MSA.pdf" (id)`: how an agent recognises the envelope. */
function envelopeName(ev: Event): string {
  const title = subject(ev);
  return `Envelope ${title ? `"${clip(title, 300)}" ` : ""}(${envelopeId(ev)!})`;
}

function commonData(ev: Event): Record<string, unknown> {
  return {
    envelope_id: envelopeId(ev),
    account_id: textAt(ev, "data.accountId"),
    user_id: textAt(ev, "data.userId"),
    subject: subject(ev),
    status: textAt(summary(ev), "status"),
    sender: sender(ev),
    recipients: recipients(ev).map((r) => ({ role: r.role, name: r.name, email: r.email, status: r.status })),
    uri: textAt(ev, "uri"),
    configuration_id: textAt(ev, "configurationId"),
  };
}

export const esignSource = defineSource({
  id: "esign",
  secrets: ["ESIGN_HMAC_KEY"],
  verify: hmacScheme({
    secret: "ESIGN_HMAC_KEY",
    hash: "sha256",
    encoding: "base64",
    // Accounts can hold many Connect keys; read as many headers as the toolkit keeps candidates.
    signatures: signatures.numbered("x-docusign-signature-", 16),
    payload: payloads.body,
  }),
  eventId: (ev) => {
    const event = textAt(ev, "event");
    const id = envelopeId(ev);
    const generated = textAt(ev, "generatedDateTime");
    return event && id && generated ? `${event}:${id}:${generated}` : undefined;
  },
  eventType: (ev) => ev.event,
  mappings: {
    "envelope-sent": {
      category: "workflow",
      required: REQUIRED,
      content: (ev) => {
        const to = recipients(ev).filter((r) => r.role !== "cc");
        const from = sender(ev);
        return `${envelopeName(ev)} was sent for signature${from ? ` by ${from}` : ""}${to.length > 0 ? ` to ${to.map(who).join(", ")}` : ""}.`;
      },
      fields: (ev) => ({
        steps: recipients(ev).map((r) =>
          clip(`${r.order}. ${r.role}: ${who(r)}${r.status ? ` (${r.status})` : ""}`, 4096),
        ),
      }),
      tags: ["envelope", "sent"],
      data: (ev) => ({ sent_at: textAt(summary(ev), "sentDateTime"), ...commonData(ev) }),
      object: envelopeId,
      lifecycle: "state",
      validFrom: (ev) => ev.generatedDateTime,
    },
    "envelope-completed": {
      category: "outcome",
      required: REQUIRED,
      content: (ev) => {
        const signed = recipients(ev).filter((r) => r.role !== "cc" && r.status === "completed");
        return `${envelopeName(ev)} was completed${signed.length > 0 ? `: signed by ${signed.map(who).join(", ")}` : ""}.`;
      },
      fields: () => ({ result: "success" }),
      tags: ["envelope", "completed"],
      data: (ev) => ({ completed_at: textAt(summary(ev), "completedDateTime"), ...commonData(ev) }),
      object: envelopeId,
      lifecycle: "close",
      validFrom: (ev) => ev.generatedDateTime,
    },
    "envelope-declined": {
      category: "exception",
      required: REQUIRED,
      content: (ev) => {
        const decliner = recipients(ev).find((r) => r.status === "declined");
        const reason = decliner ? textAt(decliner.record, "declinedReason") : undefined;
        return `${envelopeName(ev)} was declined${decliner ? ` by ${who(decliner)}` : ""}${reason ? `: "${clip(reason, 2000)}"` : " (no reason given)"}.`;
      },
      fields: () => ({ severity: "high", status: "open" }),
      tags: ["envelope", "declined"],
      data: (ev) => {
        const decliner = recipients(ev).find((r) => r.status === "declined");
        return {
          declined_by: decliner ? who(decliner) : undefined,
          decline_reason: decliner ? textAt(decliner.record, "declinedReason") : undefined,
          declined_at: decliner ? textAt(decliner.record, "declinedDateTime") : undefined,
          ...commonData(ev),
        };
      },
      object: envelopeId,
      // The envelope's end, as a completion is: still an exception, closed with it.
      lifecycle: "close",
      validFrom: (ev) => ev.generatedDateTime,
    },
  },
});
