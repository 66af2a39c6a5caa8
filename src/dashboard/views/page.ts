import { createHash } from "node:crypto";
import { html, SafeHtml } from "./html.ts";
import { CATEGORY_SWATCH_CSS } from "./writes-chart.ts";

const CSS = `
body{font-family:system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9;overflow-wrap:break-word}
header{display:flex;flex-wrap:wrap;gap:4px 16px;justify-content:space-between;align-items:center;padding:12px 24px;background:#1d2330;color:#fff}
header a{color:#cfe0ff}
main{padding:16px 24px;max-width:1200px}
section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 16px;margin:0 0 16px;overflow-x:auto}
h1{font-size:18px;margin:0}
h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.content{min-width:14em}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:20px}
.status-suspended{color:#b3261e;font-weight:600}
.muted{color:#6b7280}
.error{color:#b3261e}
.notice{border:1px solid #cfe3cf;background:#eef6ee;border-radius:6px;padding:8px 12px}
.tag{font-size:11px;background:#eceff3;border-radius:3px;padding:0 4px}
pre{white-space:pre-wrap;margin:0}
figure{margin:0}figure svg{max-width:780px}figcaption{font-size:12px;color:#6b7280}
form.sign-in{display:flex;flex-direction:column;gap:8px;max-width:420px}
form.inline{display:inline;margin:0}
input[type=password]{font:inherit;padding:6px}
form.search{display:flex;flex-wrap:wrap;gap:6px}form.search input,form.search select{font:inherit;padding:6px;min-width:0}
form.search input[type=search]{flex:1 1 14em}form.search input[type=number]{width:5em}
button{font:inherit;padding:6px 12px;width:max-content}
form.action{display:flex;flex-direction:column;gap:6px;max-width:420px}form.action input,form.action select{font:inherit;padding:6px}
form.danger button{color:#b3261e}
details.controls{flex:1 1 100%}details.controls summary{cursor:pointer}details.controls input,details.controls select{font:inherit;padding:6px;margin:6px 6px 0 0;max-width:100%}
textarea.token{width:100%;box-sizing:border-box;font:12px ui-monospace,monospace;word-break:break-all}
.chart-legend{display:none;font-size:12px;margin:4px 0 0}
.swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 0}
@media (max-width:600px){header,main{padding-left:10px;padding-right:10px}section{padding:10px}th,td{padding:3px 5px}.card{min-width:0;flex:1 1 40%;box-sizing:border-box}
.writes-chart svg text{font-size:20px}.writes-chart svg .legend{display:none}.chart-legend{display:block}}
${CATEGORY_SWATCH_CSS}
`;

const STYLE_HASH = createHash("sha256").update(CSS).digest("base64");
/** The stylesheet as markup: a constant of this module. */
const STYLESHEET = new SafeHtml(CSS);

/**
 * Headers of every operator page: no script may run and nothing is loaded from elsewhere (the
 * stylesheet is allowed by its hash); the page is never framed, cached or sent as a referrer.
 */
export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
};

export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLESHEET}</style></head>
<body>${body}</body></html>`.value;
}
