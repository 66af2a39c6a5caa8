/** The shared template helper's closing full stop (kit/draft.ts `oneFullStop`, applied by `finish`). */
import { describe, expect, test } from "bun:test";
import { finish, oneFullStop } from "../../../src/sources/kit/draft.ts";

describe("oneFullStop", () => {
  test("drops a template's stop after text that already ended its sentence", () => {
    expect(oneFullStop("Acme has 51 active seats..")).toBe("Acme has 51 active seats.");
    expect(oneFullStop("Is the invoice paid?.")).toBe("Is the invoice paid?");
    expect(oneFullStop("We won!.")).toBe("We won!");
    expect(oneFullStop("And then….")).toBe("And then…");
  });

  test("leaves one stop, text without one, and an ellipsis as written", () => {
    expect(oneFullStop("Deal Acme moved to stage won.")).toBe("Deal Acme moved to stage won.");
    expect(oneFullStop("no stop at all")).toBe("no stop at all");
    expect(oneFullStop("Hmm...")).toBe("Hmm...");
    expect(oneFullStop("Wait....")).toBe("Wait....");
    expect(oneFullStop("")).toBe("");
  });

  test("finish applies it to every draft's content", () => {
    const draft = finish({ category: "fact", content: "  Acme has 51 active seats..  " });
    expect(draft.content).toBe("Acme has 51 active seats.");
  });
});
