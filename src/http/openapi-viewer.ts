import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { NotFound } from "../errors/domain-errors.ts";

/**
 * The page at `/openapi`: Swagger UI (the `swagger-ui-dist` package, pinned in the lockfile) with
 * every file it needs served by this service under `/openapi/assets/`. Nothing is fetched from
 * anywhere else: no CDN, no fonts, no online validator badge (`validatorUrl: "none"`), and "Try it
 * out" sends its requests to the document's `servers` entry, this service. The page's
 * Content-Security-Policy says the same to the browser (`'self'` only), so a future viewer version
 * that tried would be stopped there.
 */

export const VIEWER_PATH = "/openapi";
export const VIEWER_ASSETS_PATH = `${VIEWER_PATH}/assets`;
const VIEWER_DIR = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
export const VIEWER_VERSION = (
  JSON.parse(readFileSync(join(VIEWER_DIR, "package.json"), "utf8")) as { version: string }
).version;

/** Swagger UI's options: the document of this service, no validator badge, operation ids shown. */
function initScript(specPath: string): string {
  const options = {
    url: specPath,
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    validatorUrl: "none",
    // The "Schemas" section open, listing the named schemas, each closed.
    defaultModelsExpandDepth: 1,
    docExpansion: "list",
  };
  return `"use strict";
window.addEventListener("load", function () {
  var options = ${JSON.stringify(options)};
  options.presets = [SwaggerUIBundle.presets.apis];
  window.ui = SwaggerUIBundle(options);
});
`;
}

interface Asset {
  type: string;
  /** Reads the file (once, on first use). */
  load(): Uint8Array;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** A file of the package, its source-map comment removed (the maps are not served). */
function packageFile(name: string, type: string): Asset {
  return {
    type,
    load: () => {
      const bytes = readFileSync(join(VIEWER_DIR, name));
      if (type === "image/png") return new Uint8Array(bytes);
      const text = bytes
        .toString("utf8")
        .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n")
        .replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "");
      return new TextEncoder().encode(text);
    },
  };
}

/** The files of `/openapi/assets/{file}`, by name. */
function assetTable(specPath: string): Record<string, Asset> {
  return {
    "swagger-ui-bundle.js": packageFile("swagger-ui-bundle.js", JS),
    "swagger-ui.css": packageFile("swagger-ui.css", CSS),
    "favicon-32x32.png": packageFile("favicon-32x32.png", "image/png"),
    "init.js": { type: JS, load: () => new TextEncoder().encode(initScript(specPath)) },
  };
}

export const VIEWER_ASSET_NAMES = Object.keys(assetTable(""));

const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets element styles through the DOM, which a style-src does not govern: no inline
  // style or script is needed (test/openapi-page.test.ts fails on any CSP report in the console).
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

function page(title: string): string {
  const asset = (name: string) => `${VIEWER_ASSETS_PATH}/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · API</title>
<link rel="icon" type="image/png" href="${asset("favicon-32x32.png")}">
<link rel="stylesheet" href="${asset("swagger-ui.css")}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset("swagger-ui-bundle.js")}"></script>
<script src="${asset("init.js")}"></script>
</body>
</html>
`;
}

/** A file served with a validator: an ETag of its bytes, answered 304 when the browser has it. */
interface Served {
  body: Uint8Array;
  etag: string;
}

function served(body: Uint8Array): Served {
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return { body, etag };
}

/** `If-None-Match` names this ETag (a list, or `*`). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === etag || tag === "*");
}

function answer(request: Request, file: Served, headers: Record<string, string>): Response {
  const common = { etag: file.etag, "x-content-type-options": "nosniff", ...headers };
  if (matches(request.headers.get("if-none-match"), file.etag))
    return new Response(null, { status: 304, headers: common });
  return new Response(file.body, { status: 200, headers: common });
}

const AssetParams = Type.Object({ file: Type.String() });

/**
 * The page and its assets. Both routes are hidden from the generator and described by hand in the
 * document (src/http/openapi-paths.ts), as the document's own route is.
 */
export function openapiViewerRoutes(title: string, specPath: string) {
  const assets = assetTable(specPath);
  const loaded = new Map<string, Served>();
  const html = served(new TextEncoder().encode(page(title)));
  return new Elysia({ name: "openapi-viewer" })
    .get(
      VIEWER_PATH,
      ({ request }) =>
        answer(request, html, {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": PAGE_CSP,
          "referrer-policy": "no-referrer",
          "cache-control": "no-cache",
        }),
      { detail: { hide: true } },
    )
    .get(
      `${VIEWER_ASSETS_PATH}/:file`,
      ({ params, request }) => {
        const asset = Object.hasOwn(assets, params.file) ? assets[params.file] : undefined;
        if (!asset) throw new NotFound("no such asset of the API page");
        let file = loaded.get(params.file);
        if (!file) {
          file = served(asset.load());
          loaded.set(params.file, file);
        }
        return answer(request, file, {
          "content-type": asset.type,
          // Revalidated after a day: an upgrade of the viewer changes the ETag.
          "cache-control": "public, max-age=86400",
        });
      },
      { params: AssetParams, detail: { hide: true } },
    );
}
