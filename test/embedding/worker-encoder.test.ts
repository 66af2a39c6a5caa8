/**
 * The local model in a worker thread (src/embedding/worker-encoder.ts): it answers as the model
 * does, and the runtime's own thread goes on turning while it computes, so requests are served
 * meanwhile (the model on the same thread held them up for the whole batch).
 */
import { describe, expect, test } from "bun:test";
import { USE_LITE_DIMS } from "../../src/embedding/use-lite.ts";
import { loadUseLiteInWorker } from "../../src/embedding/worker-encoder.ts";

const encoder = loadUseLiteInWorker();
const sentence = (i: number) =>
  `Note ${i}: the quarterly budget review for the northern region moved to the second Thursday of the month, after the audit.`;

describe("the local model in a worker thread", () => {
  test("answers one vector of the model's dimensions per text, in order", async () => {
    const model = await encoder;
    const [a, b, again] = await model.embed([
      "the cat sat on the mat",
      "stock prices fell",
      "the cat sat on the mat",
    ]);
    expect(a).toHaveLength(USE_LITE_DIMS);
    expect(b).toHaveLength(USE_LITE_DIMS);
    expect(again).toEqual(a!);
    expect(b).not.toEqual(a!);
  });

  test("the calling thread keeps turning while a batch is computed", async () => {
    const model = await encoder;
    let turns = 0;
    let done = false;
    const spin = () => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    await model.embed(Array.from({ length: 16 }, (_, i) => sentence(i)));
    done = true;
    // On the calling thread the batch would run in one go: a turn or two at most.
    expect(turns).toBeGreaterThan(20);
  });
});
