import { html } from "./html.ts";
import { page } from "./page.ts";
import { SESSION_PATH } from "./paths.ts";

/**
 * The small form of CONTRACT §8: the operator pastes the admin JWT; the server answers with a cookie
 * the dashboard's GET requests then carry. `message` says why the form is shown (escaped).
 */
export function signInPage(message?: string): string {
  return page(
    "Sign in · typed-memory runtime",
    html`<header><h1>Typed-memory runtime · operator</h1></header>
<main><section>
<h2>Sign in</h2>
${message ? html`<p class="error" role="alert">${message}</p>` : ""}
<form class="sign-in" method="post" action="${SESSION_PATH}">
<label for="token">Operator token (the admin JWT)</label>
<input id="token" name="token" type="password" autocomplete="off" required maxlength="8192">
<button type="submit">Open the dashboard</button>
</form>
<p class="muted">The token is kept in an HttpOnly cookie for this site's <code>/admin</code> pages, for GET requests only.</p>
</section></main>`,
  );
}
