/**
 * `forms` (modelled on Typeform): `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`,
 * keyed with the webhook's secret; no timestamp. One response per delivery; its `event_id` dedupes.
 * A submitted response becomes a fact listing each question with its answer, bounded, so an agent
 * reads what the respondent said without the form definition at hand.
 */
import { at, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { clip, text } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

/** A long form is summarised: the first answers in full, then a count of the rest. */
const MAX_LISTED = 100;
const MAX_QUESTION = 300;
const MAX_ANSWER = 1000;

const answersOf = (ev: Event): unknown[] => {
  const answers = at(ev, "form_response.answers");
  return Array.isArray(answers) ? answers : [];
};

/** The question of an answer: its field's title in the definition, else the field's ref or id. */
function questionOf(ev: Event, answer: unknown): string | undefined {
  const id = textAt(answer, "field.id");
  const fields = at(ev, "form_response.definition.fields");
  const field = Array.isArray(fields)
    ? fields.find((f) => id !== undefined && textAt(f, "id") === id)
    : undefined;
  return textAt(field, "title") ?? textAt(answer, "field.ref") ?? id;
}

/** An answer as text, whatever its type (text, choice, choices, number, boolean, payment, …). */
function answerText(answer: unknown): string {
  const type = textAt(answer, "type");
  const value = type ? at(answer, type) : undefined;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (type === "choice") return textAt(value, "label") ?? textAt(value, "other") ?? "";
  if (type === "choices") {
    const labels = at(value, "labels");
    const chosen = Array.isArray(labels) ? labels.map(text).filter((l) => l !== undefined) : [];
    const other = textAt(value, "other");
    return [...chosen, ...(other ? [other] : [])].join(", ");
  }
  if (type === "payment") {
    const amount = textAt(value, "amount");
    const paid = at(value, "success") === true ? "paid" : "payment failed";
    return `${amount ? `${amount} ` : ""}${paid}${textAt(value, "name") ? ` by ${textAt(value, "name")}` : ""}`;
  }
  const plain = text(value);
  if (plain !== undefined) return plain;
  return value === undefined ? "" : (JSON.stringify(value) ?? "");
}

function formTitle(ev: Event): string {
  const title = textAt(ev, "form_response.definition.title");
  const id = textAt(ev, "form_response.form_id");
  return `${title ? `"${title}"` : "form"}${id ? ` (form ${id})` : ""}`;
}

/** `- Question: answer`; an answer that says nothing is left out. */
function answerLine(ev: Event, answer: unknown): string | undefined {
  const said = clip(answerText(answer).trim(), MAX_ANSWER);
  if (!said) return undefined;
  const question = questionOf(ev, answer);
  return question ? `- ${clip(question.replace(/\s+/g, " "), MAX_QUESTION)}: ${said}` : `- ${said}`;
}

function contentOf(ev: Event): string {
  const submitted = textAt(ev, "form_response.submitted_at");
  const answers = answersOf(ev);
  const lines = [`Typeform response to ${formTitle(ev)}${submitted ? `, submitted ${submitted}` : ""}:`];
  const said = answers.slice(0, MAX_LISTED).map((answer) => answerLine(ev, answer));
  lines.push(...said.filter((line): line is string => line !== undefined));
  if (lines.length === 1) lines.push("- (no answers)");
  if (answers.length > MAX_LISTED) lines.push(`(and ${answers.length - MAX_LISTED} more answers)`);
  const hidden = at(ev, "form_response.hidden");
  if (isRecord(hidden) && Object.keys(hidden).length > 0) {
    // A hidden field the form was opened without says nothing.
    const pairs = Object.entries(hidden)
      .filter(([, v]) => text(v) !== undefined)
      .slice(0, 20);
    if (pairs.length > 0)
      lines.push(`Hidden fields: ${pairs.map(([k, v]) => `${k}=${clip(text(v)!, 200)}`).join(", ")}`);
  }
  const score = at(ev, "form_response.calculated.score");
  if (typeof score === "number") lines.push(`Score: ${score}`);
  return lines.join("\n");
}

export const formsSource = defineSource({
  id: "forms",
  secrets: ["FORMS_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "FORMS_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "base64",
    signatures: signatures.header("typeform-signature", "sha256="),
    payload: payloads.body,
  }),
  eventId: (ev) => ev.event_id,
  eventType: (ev) => ev.event_type,
  mappings: {
    form_response: {
      category: "fact",
      // The response token identifies the submission (a response without one is not a response).
      required: ["form_response.token"],
      content: contentOf,
      tags: (ev) => ["form_response", textAt(ev, "form_response.form_id")],
      data: (ev) => ({
        form_id: textAt(ev, "form_response.form_id"),
        form_title: textAt(ev, "form_response.definition.title"),
        response_token: textAt(ev, "form_response.token"),
        landed_at: textAt(ev, "form_response.landed_at"),
        submitted_at: textAt(ev, "form_response.submitted_at"),
        answer_count: answersOf(ev).length,
        hidden: at(ev, "form_response.hidden"),
        calculated: at(ev, "form_response.calculated"),
        // By the fields' refs (the stable names integrations key answers by), short enough to fit.
        answers: Object.fromEntries(
          answersOf(ev)
            .slice(0, 50)
            .map((a, i) => [
              textAt(a, "field.ref") ?? textAt(a, "field.id") ?? String(i),
              clip(answerText(a), 120),
            ]),
        ),
      }),
      validFrom: (ev) => textAt(ev, "form_response.submitted_at"),
    },
  },
});
