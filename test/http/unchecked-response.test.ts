/**
 * Responses of stored entries are documented but not re-checked per request
 * (src/http/unchecked-response.ts): Elysia skips the check, the model schema is left alone, and the
 * OpenAPI document is the one the plain schema gives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { errorsPlugin } from "../../src/http/errors.ts";
import { NO_VALIDATE_KEY, unchecked } from "../../src/http/unchecked-response.ts";
import { EntryView, entryViewOf } from "../../src/models/entry.ts";
import { SearchResponse } from "../../src/models/search.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const Shape = Type.Object({ a: Type.String() });
const quiet = () => undefined;

/** An app answering `{ a: 1 }`, which `Shape` does not allow, under `schema`. */
function answering(schema: typeof Shape) {
  return new Elysia()
    .use(errorsPlugin(quiet))
    .get("/x", () => ({ a: 1 }) as unknown as { a: string }, { response: { 200: schema } });
}

describe("unchecked", () => {
  test("Elysia checks a plain response schema (a mismatch is a 500) and skips a marked one", async () => {
    expect((await answering(Shape).handle(new Request("http://localhost/x"))).status).toBe(500);
    const res = await answering(unchecked(Shape)).handle(new Request("http://localhost/x"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  test("marks a copy: the shared model schema is not marked", () => {
    const marked = unchecked(EntryView);
    expect(marked[NO_VALIDATE_KEY as keyof typeof marked]).toBe(true);
    expect(NO_VALIDATE_KEY in EntryView).toBe(false);
    expect(marked.properties).toBe(EntryView.properties);
  });
});

describe("the OpenAPI document of unchecked responses", () => {
  let h: Harness;
  // biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
  let doc: any;
  beforeAll(async () => {
    h = await startHarness();
    doc = await (await h.call("GET", "/openapi/json")).json();
  });
  afterAll(() => h.close());

  test("carries no trace of the mark anywhere", () => {
    expect(JSON.stringify(doc)).not.toContain(`"${NO_VALIDATE_KEY}"`);
  });

  test("documents the stored-entry answers with their full schemas", () => {
    // Each is a named component (src/http/openapi-components.ts), referred to by $ref.
    const schemaOf = (path: string, method: string) => {
      const ref: string = doc.paths[path][method].responses["200"].content["application/json"].schema.$ref;
      return doc.components.schemas[ref.replace("#/components/schemas/", "")];
    };
    const entry = schemaOf("/memory/facts/{sha8}", "get");
    const FactEntry = entryViewOf("fact");
    expect(Object.keys(entry.properties).sort()).toEqual(Object.keys(FactEntry.properties).sort());
    expect(entry.additionalProperties).toBe(false);
    expect(entry.required).toEqual(FactEntry.required);
    const search = schemaOf("/memory/search", "post");
    expect(Object.keys(search.properties).sort()).toEqual(Object.keys(SearchResponse.properties).sort());
  });
});
