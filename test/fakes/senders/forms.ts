import { createHmac, randomBytes } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/** Typeform's signing: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`. */
export const FORMS_SECRET = "tf_webhook_secret_3c9Xk2LmQ8vR";
const OLD_SECRET = "tf_webhook_secret_before_rotation";

export function typeformSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("base64")}`;
}

export const formsSender: PlatformSender = {
  source: "forms",
  secrets: { FORMS_WEBHOOK_SECRET: FORMS_SECRET },
  signsBody: true,
  sign(body: string, _opts: SignOptions): Signed {
    return {
      headers: {
        "content-type": "application/json",
        "typeform-signature": typeformSignature(FORMS_SECRET, body),
      },
      body,
    };
  },
  // Typeform sends one signature; a header sent twice arrives joined with ", ".
  signRotated(body: string, _opts: SignOptions): Signed {
    const both = `${typeformSignature(OLD_SECRET, body)}, ${typeformSignature(FORMS_SECRET, body)}`;
    return { headers: { "content-type": "application/json", "typeform-signature": both }, body };
  },
};

const id = (n: number) => randomBytes(n).toString("hex");

/** The fields of the sample form (Typeform's documented example, trimmed). */
export const FIELDS = [
  { id: "SMEUb7VJz92Q", title: "What is your name?", type: "short_text", ref: "name" },
  { id: "JwWggjAKtOkA", title: "What is your email?", type: "email", ref: "email" },
  { id: "k6TP9oLGgHjl", title: "Which plan are you interested in?", type: "multiple_choice", ref: "plan" },
  { id: "pn48RmPazVdM", title: "Which integrations matter?", type: "multiple_choice", ref: "integrations" },
  { id: "Q7M2gAdnsr1X", title: "How many seats?", type: "number", ref: "seats" },
  { id: "gFFf3xAkJKsr", title: "Do you need SSO?", type: "yes_no", ref: "sso" },
  { id: "DlXFaesGBpoF", title: "Anything else we should know?", type: "long_text", ref: "notes" },
];

const field = (ref: string) => {
  const f = FIELDS.find((x) => x.ref === ref)!;
  return { id: f.id, type: f.type, ref: f.ref };
};

/** The answers of the sample form, one of each common type. */
export function sampleAnswers(): unknown[] {
  return [
    { type: "text", text: "Laura Palmer", field: field("name") },
    { type: "email", email: "laura@example.com", field: field("email") },
    {
      type: "choice",
      choice: { id: "Zsv3Zt0Hc5YX", label: "Enterprise", ref: "enterprise" },
      field: field("plan"),
    },
    {
      type: "choices",
      choices: { labels: ["Salesforce", "Slack"], other: "Jira" },
      field: field("integrations"),
    },
    { type: "number", number: 250, field: field("seats") },
    { type: "boolean", boolean: true, field: field("sso") },
    { type: "text", text: "We must go live before the Q1 audit.", field: field("notes") },
  ];
}

/** A Typeform webhook: `{event_id, event_type, form_response}`, with a fresh event id and token. */
export function typeformEvent(
  answers: unknown[] = sampleAnswers(),
  response: Record<string, unknown> = {},
  eventType = "form_response",
): string {
  return JSON.stringify({
    event_id: `01J${id(12).toUpperCase()}`,
    event_type: eventType,
    form_response: {
      form_id: "lT4Z3j",
      token: id(16),
      landed_at: "2026-11-20T09:41:02Z",
      submitted_at: "2026-11-20T09:47:35Z",
      hidden: { utm_source: "newsletter", account_id: "acct_8812" },
      calculated: { score: 9 },
      definition: { id: "lT4Z3j", title: "Enterprise demo request", fields: FIELDS },
      answers,
      ending: { id: "DefaultTyScreen", ref: "default_tys" },
      ...response,
    },
  });
}
