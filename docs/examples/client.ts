// The typed client against a running service. Run it with
//   MEMORY_BASE_URL=http://127.0.0.1:8080 MEMORY_TOKEN=<a tenant token> bun run docs/examples/client.ts
import { createClient } from "typed-memory-runtime/client";

const client = createClient({
  baseUrl: process.env.MEMORY_BASE_URL ?? "http://127.0.0.1:8080",
  token: process.env.MEMORY_TOKEN ?? "",
});

// A write answers the entry of its category: `fact.category` is the type "fact".
const fact = await client.memory.write("fact", {
  content: "Acme renews its contract in March",
  tags: ["acme", "renewal"],
});
if (fact.error) throw new Error(`${fact.error.status} ${fact.error.code}: ${fact.error.detail}`);

// The idempotency key makes a retry of this write answer the first one instead of writing twice.
const decision = await client.memory.write(
  "decision",
  { content: "Offer Acme a two-year renewal", data: { why: "renews every year" } },
  { idempotencyKey: "acme-renewal-offer" },
);
if (decision.error) throw new Error(decision.error.detail);

// Errors come back as the problem document (status, code, detail, request_id), never thrown.
const missing = await client.memory.get("fact", "00000000");

const found = await client.search({ query: "when does Acme renew?", limit: 5 });
const page = await client.memory.list("fact", { tag: "acme", limit: 10 });

console.log(
  JSON.stringify({
    fact: { id: fact.data.id, category: fact.data.category, status: fact.response.status },
    decision: { id: decision.data.id, data: decision.data.data },
    missing: missing.error && { status: missing.error.status, code: missing.error.code },
    found: found.data?.results.map((r) => ({ id: r.entry.id, category: r.entry.category })),
    listed: page.data?.items.map((e) => e.id),
  }),
);
