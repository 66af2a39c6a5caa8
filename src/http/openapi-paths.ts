import { VIEWER_ASSET_NAMES, VIEWER_ASSETS_PATH, VIEWER_PATH, VIEWER_VERSION } from "./openapi-viewer.ts";

type Json = Record<string, unknown>;

export const OPENAPI_JSON_PATH = `${VIEWER_PATH}/json`;

const problemOf = (description: string): Json => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

const etagHeaders: Json = {
  ETag: { description: "The file's validator: send it back as `If-None-Match`", schema: { type: "string" } },
  "Cache-Control": { description: "How long the browser may keep it", schema: { type: "string" } },
};

/**
 * The routes the generator is told to skip (the document itself, the page and the page's files),
 * described by hand: a generated description of them would say less (a media type per file).
 */
export function documentRoutePaths(): Record<string, Json> {
  return {
    [VIEWER_PATH]: {
      get: {
        tags: ["openapi"],
        summary: `This document, rendered (Swagger UI ${VIEWER_VERSION}, served by this service)`,
        operationId: "getOpenapi",
        security: [],
        responses: {
          200: {
            description: "An HTML page; its scripts and styles are the files of `/openapi/assets/{file}`",
            headers: etagHeaders,
            content: { "text/html": { schema: { type: "string" } } },
          },
          304: { description: "Not modified (`If-None-Match`)", headers: etagHeaders },
        },
      },
    },
    [`${VIEWER_ASSETS_PATH}/{file}`]: {
      get: {
        tags: ["openapi"],
        summary: "A file of the API page (the viewer's script and stylesheet, its options, the icon)",
        operationId: "getOpenapiAsset",
        security: [],
        parameters: [
          { name: "file", in: "path", required: true, schema: { type: "string", enum: VIEWER_ASSET_NAMES } },
        ],
        responses: {
          200: {
            description: "The file",
            headers: etagHeaders,
            content: {
              "text/javascript": { schema: { type: "string" } },
              "text/css": { schema: { type: "string" } },
              "image/png": { schema: { type: "string", contentEncoding: "binary" } },
            },
          },
          304: { description: "Not modified (`If-None-Match`)", headers: etagHeaders },
          404: problemOf("No such file"),
        },
      },
    },
    [OPENAPI_JSON_PATH]: {
      get: {
        tags: ["openapi"],
        summary: "This document (OpenAPI 3.1)",
        operationId: "getOpenapiJson",
        security: [],
        responses: {
          200: {
            description: "The OpenAPI document",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["openapi", "info", "paths"],
                  properties: {
                    openapi: { type: "string", pattern: "^3\\.1\\.[0-9]+$" },
                    info: { type: "object" },
                    paths: { type: "object" },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
