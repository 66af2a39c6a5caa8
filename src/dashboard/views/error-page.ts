import { html } from "./html.ts";
import { page } from "./page.ts";

/** What an operator page says of an error that signing in would not cure (a 405, a 422, a 429). */
export interface ErrorPageModel {
  status: number;
  title: string;
  detail: string;
  /** The fields at fault (a 422), by JSON pointer. */
  errors?: ReadonlyArray<{ path: string; message: string }>;
  requestId: string;
  /** Where the operator goes on from here. */
  back: string;
}

/** The problem document's facts as a page for a person; every value escaped. */
export function errorPage(model: ErrorPageModel): string {
  const faults = model.errors ?? [];
  return page(
    `${model.status} ${model.title} · typed-memory runtime`,
    html`<header><h1>Typed-memory runtime · operator</h1></header>
<main><section>
<h2>${model.status} ${model.title}</h2>
<p class="error" role="alert">${model.detail}</p>
${
  faults.length > 0
    ? html`<ul>${faults.map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>`
    : ""
}
<p><a href="${model.back}">Back to the dashboard</a></p>
<p class="muted">Request id <code>${model.requestId}</code></p>
</section></main>`,
  );
}
