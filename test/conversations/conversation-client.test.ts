/** The typed client's conversation calls, against the app in process (its `fetch` is app.handle). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createClient, type MemoryClient } from "typed-memory-runtime/client";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
let memory: MemoryClient;

beforeAll(async () => {
  h = await startHarness();
  const { token } = await h.createTenant("conversation-client");
  memory = createClient({ baseUrl: "http://localhost", token, fetch: (r) => h.app.handle(r) });
});
afterAll(() => h.close());

test("conversations.add writes turns and extractions; conversations.turns pages them in order", async () => {
  const { data, error } = await memory.conversations.add({
    session_id: "client-1",
    messages: [
      { speaker: "Ines", content: "My favourite food is ramen.", at: "2026-03-01T12:00:00Z" },
      { speaker: "Ines", content: "I'll book the table on Friday.", at: "2026-03-01T12:01:00Z" },
      { speaker: "Ines", content: "Thanks!", at: "2026-03-01T12:02:00Z" },
    ],
  });
  expect(error).toBeUndefined();
  expect(data!.extracted.map((x) => x.kind)).toEqual(["preference", "commitment"]);
  const first = await memory.conversations.turns("client-1", { limit: 2 });
  expect(first.data!.turns.map((t) => t.position)).toEqual([0, 1]);
  const rest = await memory.conversations.turns("client-1", { cursor: first.data!.next_cursor! });
  expect(rest.data!.turns.map((t) => t.entry.content)).toEqual(["Ines: Thanks!"]);
  expect(rest.data!.next_cursor).toBeNull();
});

test("a refused call answers the problem document", async () => {
  const { error } = await memory.conversations.add({ session_id: "client-2", messages: [] });
  expect(error?.status).toBe(422);
});
