import { expect, test } from "bun:test";
import { asksAbout } from "../../../../src/search/controls/entities/entity-question.ts";

/** Which queries ask about an entity as a whole (the spread over its objects applies to those only). */
test("a question about the entity as a whole, not one that says what it wants of it", () => {
  const acme = ["brightmoor media"];
  expect(asksAbout("What do we know about Brightmoor Media?", acme)).toBe(true);
  expect(asksAbout("brightmoor media", acme)).toBe(true);
  expect(asksAbout("Tell me about Brightmoor Media's account", acme)).toBe(false);
  expect(asksAbout("Does Brightmoor Media have billing trouble and an escalated support ticket?", acme)).toBe(
    false,
  );
  expect(asksAbout("What do we know?", [])).toBe(false);
});
