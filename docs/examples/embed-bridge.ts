// The runtime in a program of your own, fed through its in-process messaging bridge. Run it with
//   MEMORY_RUNTIME_JWT_SECRET=$(openssl rand -base64 48) bun run docs/examples/embed-bridge.ts
import { SignJWT } from "jose";
import { createRuntime } from "typed-memory-runtime";
import { createClient } from "typed-memory-runtime/client";

const secret = process.env.MEMORY_RUNTIME_JWT_SECRET ?? "";
const runtime = createRuntime({
  env: {
    MEMORY_RUNTIME_JWT_SECRET: secret,
    MEMORY_RUNTIME_DATA_DIR: process.env.MEMORY_RUNTIME_DATA_DIR ?? "./memory",
  },
});
// runtime.listen(8080) would serve the HTTP API as well; runtime.app.handle(request) needs no port.

// A tenant to feed, created with an operator token signed with the same secret (any HS256 tool does).
const admin = await new SignJWT({ tenant_id: "00000000000000000000000000", roles: [], admin: true })
  .setProtectedHeader({ alg: "HS256" })
  .setSubject("operator")
  .setExpirationTime("5m")
  .sign(new TextEncoder().encode(secret));
// The typed client (typed-memory-runtime/client) reaches the embedded runtime through its app.
const api = createClient({
  baseUrl: "http://localhost",
  token: admin,
  fetch: (request) => runtime.app.handle(request),
});
const created = await api.admin.tenants.create({ name: `Chat workspace ${new Date().toISOString()}` });
if (created.error) throw new Error(`creating the tenant: ${created.error.detail}`);
const tenantId = created.data.tenant_id;

// A message becomes a fact.
const message = await runtime.bridge.deliver(tenantId, {
  type: "message",
  channel: "C024BE91L",
  user: "U2147483697",
  text: "We ship on Friday",
  ts: "1763720000.000100",
});
// { entries: ["<fact id>"], duplicates: 0, dead_lettered: [], ignored: 0, held: 0 }

// A ✅ on that message promotes it to a decision; `user` is who reacted.
const reaction = await runtime.bridge.deliver(tenantId, {
  type: "reaction_added",
  user: "U061F7AUR",
  reaction: "white_check_mark",
  item: { type: "message", channel: "C024BE91L", ts: "1763720000.000100" },
});
// { entries: ["<decision id>"], duplicates: 0, dead_lettered: [], ignored: 0, held: 0 }

console.log(JSON.stringify({ tenant_id: tenantId, message, reaction }));
await runtime.stop();
