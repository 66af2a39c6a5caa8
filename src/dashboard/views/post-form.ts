import { FORM_TOKEN_FIELD } from "../../http/dashboard-form.ts";
import { html, type SafeHtml } from "./html.ts";

/**
 * A one-button form that changes something (a replay; pausing a source next): a POST to `action`
 * with its fields hidden, and the page's form token, without which a form posted with the cookie
 * is refused (src/http/dashboard-form.ts). Every value is escaped.
 */
export function postForm(
  action: string,
  fields: Record<string, string>,
  label: string,
  formToken: string | undefined,
): SafeHtml {
  const hidden = Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form class="inline" method="post" action="${action}">${hidden}${formTokenField(formToken)}<button type="submit">${label}</button></form>`;
}

/** The page's form token as a hidden field (nothing without one: a bearer token needs none). */
export function formTokenField(formToken: string | undefined): SafeHtml | string {
  return formToken === undefined
    ? ""
    : html`<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${formToken}">`;
}
