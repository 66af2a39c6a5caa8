/**
 * Operator-side minting: signs CONTRACT §3 claims with MEMORY_RUNTIME_JWT_SECRET.
 *   bun run scripts/mint-token.ts --admin                       # operator token
 *   bun run scripts/mint-token.ts --tenant <ULID> --roles agent --sub agent-7 --ttl 900
 * Prints the token alone on stdout, so `TOKEN=$(bun run scripts/mint-token.ts --admin)` works.
 */
import { parseArgs } from "node:util";
import { TokenService } from "../src/auth/tokens.ts";
import { ConfigError, loadConfig } from "../src/config.ts";
import { OPERATOR_TENANT_ID, ULID_RE } from "../src/models/common.ts";
import { MAX_TOKEN_TTL_SECONDS } from "../src/models/role.ts";
import { systemClock } from "../src/runtime/clock.ts";

const { values } = parseArgs({
  options: {
    admin: { type: "boolean", default: false },
    tenant: { type: "string" },
    roles: { type: "string", default: "tenant_admin" },
    sub: { type: "string" },
    ttl: { type: "string" },
  },
});

try {
  const config = loadConfig(process.env);
  const ttlSeconds = values.ttl ? Number(values.ttl) : config.tokenTtlSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TOKEN_TTL_SECONDS)
    throw new ConfigError(`--ttl must be an integer from 1 to ${MAX_TOKEN_TTL_SECONDS} seconds`);
  const tokens = new TokenService(config.jwtSecret, systemClock);
  if (!values.admin && !(values.tenant && ULID_RE.test(values.tenant))) {
    throw new ConfigError(
      "give --admin, or --tenant <tenant ULID> [--roles a,b] [--sub name] [--ttl seconds]",
    );
  }
  const { token } = values.admin
    ? await tokens.mint({
        sub: values.sub ?? "operator",
        tenantId: OPERATOR_TENANT_ID,
        roles: [],
        admin: true,
        ttlSeconds,
      })
    : await tokens.mint({
        sub: values.sub ?? "agent",
        tenantId: values.tenant!,
        roles: values.roles!.split(",").filter(Boolean),
        ttlSeconds,
      });
  console.log(token);
} catch (error) {
  console.error(`mint-token: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
