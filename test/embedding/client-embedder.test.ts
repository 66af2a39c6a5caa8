import { describe, expect, test } from "bun:test";
import { ClientEmbedder } from "../../src/embedding/client-embedder.ts";
import { ValidationFailed } from "../../src/errors/domain-errors.ts";

describe("ClientEmbedder", () => {
  test("refuses to embed text: the caller must send `embedding`", async () => {
    const embedder = new ClientEmbedder(3);
    expect(embedder.kind).toBe("client");
    expect(embedder.dims).toBe(3);
    const err = await embedder.embed(["some query"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).status).toBe(422);
    expect((err as Error).message).toBe("this tenant's embedder is `client`: send `embedding`");
  });
});
