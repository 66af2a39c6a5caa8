// The operator's side of the typed client: a tenant, a token for an agent, dead letters. Run it with
//   MEMORY_BASE_URL=http://127.0.0.1:8080 MEMORY_ADMIN_TOKEN=<an operator token> bun run docs/examples/client-admin.ts
import { createClient } from "typed-memory-runtime/client";

const operator = createClient({
  baseUrl: process.env.MEMORY_BASE_URL ?? "http://127.0.0.1:8080",
  token: process.env.MEMORY_ADMIN_TOKEN ?? "",
});

const tenant = await operator.admin.tenants.create({ name: `Acme ${new Date().toISOString()}` });
if (tenant.error) throw new Error(`${tenant.error.status} ${tenant.error.code}: ${tenant.error.detail}`);
const tenantId = tenant.data.tenant_id;

// A token for an agent, with a role of the tenant's library.
const agent = await operator.admin.tokens.mint(tenantId, {
  roles: ["tenant_admin"],
  sub: "agent-7",
  ttl_seconds: 900,
});
if (agent.error) throw new Error(agent.error.detail);

// Source events that could not be mapped, newest first; a replay maps one again.
const dead = await operator.admin.deadLetters.list(tenantId, { status: "dead", limit: 100 });
if (dead.error) throw new Error(dead.error.detail);
const replays = [];
for (const letter of dead.data.dead_letters) {
  const replay = await operator.admin.deadLetters.replay(tenantId, letter.event_id);
  replays.push(replay.data?.status); // "replayed", or "dead" with last_error when it fails again
}

console.log(
  JSON.stringify({
    tenant_id: tenantId,
    agent: agent.data.sub,
    dead_letters: dead.data.dead_letters.length,
    replays,
  }),
);
