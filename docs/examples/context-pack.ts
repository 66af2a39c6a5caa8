// A context pack with the typed client. Run it with
//   MEMORY_BASE_URL=http://127.0.0.1:8080 MEMORY_TOKEN=<a tenant token> bun run docs/examples/context-pack.ts
import { createClient } from "typed-memory-runtime/client";

const memory = createClient({
  baseUrl: process.env.MEMORY_BASE_URL ?? "http://127.0.0.1:8080",
  token: process.env.MEMORY_TOKEN ?? "",
});

for (const content of [
  "Acme pays its invoices by bank transfer, 30 days net",
  "Acme's invoice INV-7 was disputed: the PO number was missing",
]) {
  const written = await memory.memory.write("fact", { content, subject: "acme" });
  if (written.error) throw new Error(written.error.detail);
}
const decided = await memory.memory.write("decision", {
  content: "Put the PO number on every Acme invoice",
  subject: "acme",
});
if (decided.error) throw new Error(decided.error.detail);

// The best entries about Acme's invoices, as a block that fits 400 tokens of the prompt.
const pack = await memory.context({
  query: "how does Acme pay its invoices",
  subject: "acme",
  budget_tokens: 400,
});
if (pack.error) throw new Error(pack.error.detail);

// `text` goes into the prompt as it is; the rest is for the caller.
console.log(
  JSON.stringify({
    fits: pack.data.tokens <= pack.data.budget_tokens,
    encoding: pack.data.encoding,
    entries: pack.data.entries.length,
    categories: [...new Set(pack.data.entries.map((e) => e.category))].sort(),
    truncated: pack.data.truncated,
    starts: pack.data.text.split("\n")[0],
  }),
);
