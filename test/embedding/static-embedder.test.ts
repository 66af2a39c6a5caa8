import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { createEmbedder } from "../../src/embedding/create-embedder.ts";
import { PieceTokenizer } from "../../src/embedding/piece-tokenizer.ts";
import { StaticEmbedder, sharedStaticTable } from "../../src/embedding/static-embedder.ts";
import { STATIC_TABLE_DIR, STATIC_TABLE_FILES } from "../../src/embedding/static-table.ts";

const embedder = new StaticEmbedder();
const cosine = (a: string, b: string) => {
  const [x, y] = [embedder.embedSync(a), embedder.embedSync(b)];
  return x.reduce((s, v, i) => s + v * y[i]!, 0);
};
const sha256 = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(STATIC_TABLE_DIR, file)))
    .digest("hex");
const recipe = JSON.parse(readFileSync(join(STATIC_TABLE_DIR, STATIC_TABLE_FILES.recipe), "utf8"));

describe("the committed static table", () => {
  test("has the SHA-256 its recipe record names (CI checks the artefact, it does not rebuild it)", () => {
    expect(sha256(STATIC_TABLE_FILES.table)).toBe(recipe.table.sha256);
    expect(sha256(STATIC_TABLE_FILES.vocab)).toBe(recipe.vocabulary.sha256);
  });

  test("holds the rows and dims the record says, int8 with one scale a row", () => {
    const table = sharedStaticTable();
    expect(table.entries).toHaveLength(recipe.rows);
    expect(table.dims).toBe(512);
    expect(table.values.length).toBe(recipe.rows * 512);
    expect(recipe.table.bytes).toBe(recipe.rows * (512 + 4));
    expect(table.scales.every((s) => Number.isFinite(s) && s > 0)).toBe(true);
  });
});

describe("StaticEmbedder", () => {
  test("makes unit vectors of the local model's 512 dims, the same for the same text", async () => {
    const text = "Ana asked us to send the signed contract before Friday.";
    const [a] = await embedder.embed([text]);
    const b = new StaticEmbedder().embedSync(text);
    expect(embedder.kind).toBe("static");
    expect(a).toHaveLength(512);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect([...b]).toEqual([...a!]);
  });

  test("text without a word embeds to the zero vector", () => {
    expect(embedder.embedSync("?! …").every((v) => v === 0)).toBe(true);
    expect(embedder.embedSync("").every((v) => v === 0)).toBe(true);
  });

  test.each([
    [
      "The invoice has not been paid yet.",
      "The bill is still outstanding.",
      "My grandmother grows tomatoes.",
    ],
    ["She adopted a puppy.", "She got a young dog.", "The quarterly budget was approved."],
    [
      "The shipment was delayed by a storm.",
      "Bad weather held up the delivery.",
      "He speaks fluent Japanese.",
    ],
    [
      "I feel nervous before the job interview.",
      "He is anxious about the interview.",
      "The cat sleeps on the sofa.",
    ],
  ])("%s is closer to a paraphrase than to an unrelated sentence", (text, similar, unrelated) => {
    expect(cosine(text, similar)).toBeGreaterThan(cosine(text, unrelated) + 0.1);
  });

  test("is case-insensitive and ignores punctuation, as the lexical index does", () => {
    expect([...embedder.embedSync("Refund, PLEASE!")]).toEqual([...embedder.embedSync("refund please")]);
  });
});

describe("PieceTokenizer", () => {
  const tokenizer = new PieceTokenizer(
    ["▁contract", "s", "▁con", "tract", "▁a", "b"],
    Float32Array.of(-8, -4, -6, -9, -5, -7),
  );

  test("takes a whole word when the table has it, else the most probable pieces", () => {
    expect(tokenizer.segment("contract")).toEqual([0]);
    expect(tokenizer.segment("contracts")).toEqual([0, 1]);
    expect(tokenizer.segment("ab")).toEqual([4, 5]);
  });

  test("skips a character no piece covers", () => {
    expect(tokenizer.segment("a€b")).toEqual([4, 5]);
  });
});

describe("MEMORY_RUNTIME_EMBEDDER=static", () => {
  const env = (over: Record<string, string>) => ({ MEMORY_RUNTIME_JWT_SECRET: "s".repeat(32), ...over });

  test("is accepted with the local model's 512 dims, other dims refused", () => {
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "static" }))).toMatchObject({
      embedder: "static",
      embeddingDims: 512,
    });
    expect(() =>
      loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "static", MEMORY_RUNTIME_EMBEDDING_DIMS: "384" })),
    ).toThrow(
      new ConfigError(
        "MEMORY_RUNTIME_EMBEDDER=static makes vectors of 512 dimensions, but MEMORY_RUNTIME_EMBEDDING_DIMS is 384: " +
          "unset MEMORY_RUNTIME_EMBEDDING_DIMS or set it to 512",
      ),
    );
  });

  test("createEmbedder makes a static embedder", () => {
    const made = createEmbedder({ kind: "static", dims: 512 });
    expect(made.kind).toBe("static");
    expect(made.dims).toBe(512);
  });
});
