/**
 * The client stands alone: client/ imports only its own files and openapi-fetch (never the
 * service's src/ or actors/), so a program that imports it pulls in nothing of the server.
 */
import { expect, test } from "bun:test";
import { sourceFiles } from "../helpers/source-graph.ts";

test("client/ imports only client/ files and openapi-fetch", () => {
  const files = sourceFiles(["client"]);
  expect(files.map((f) => f.path)).toContain("client/index.ts");
  const outside = files.flatMap((f) =>
    f.imports
      .filter((i) => (i.target ? !i.target.startsWith("client/") : i.specifier !== "openapi-fetch"))
      .map((i) => `${f.path} → ${i.specifier}`),
  );
  expect(outside).toEqual([]);
});
