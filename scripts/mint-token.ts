/**
 * Operator-side minting: signs CONTRACT §3 claims with MEMORY_RUNTIME_JWT_SECRET.
 *   bun run scripts/mint-token.ts --admin                       # operator token
 *   bun run scripts/mint-token.ts --tenant <ULID> --roles agent --sub agent-7 --ttl 900
 *   bun run scripts/mint-token.ts --tenant <ULID> --roles agent --subject user-42   # one end user's
 * Prints the token alone on stdout, so `TOKEN=$(bun run scripts/mint-token.ts --admin)` works.
 */
import type { UnscopedAccess } from "../src/auth/subject-scope.ts";
import { TokenService } from "../src/auth/tokens.ts";
import { loadConfig } from "../src/config/config.ts";
import { OPERATOR_TENANT_ID, ULID_RE } from "../src/models/common.ts";
import { MAX_TOKEN_TTL_SECONDS, UNSCOPED_ACCESS } from "../src/models/role.ts";
import { isScopeId } from "../src/models/scope.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { intOption, parseCli, usageExit } from "./cli.ts";

const USAGE = `Usage: bun run mint-token (--admin | --tenant TENANT_ID) [options]

Signs a token with MEMORY_RUNTIME_JWT_SECRET (or MEMORY_RUNTIME_JWT_SECRET_FILE; bun run setup
writes .secrets/jwt-secret) and prints it alone on stdout: TOKEN=$(bun run mint-token --admin).

Options:
  --admin              an operator token
  --tenant TENANT_ID   a token of that tenant (a ULID)
  --roles a,b          the tenant token's roles (default: tenant_admin)
  --sub NAME           the principal (default: operator, or agent)
  --subject ID         restrict the tenant token to this subject's entries (docs/auth.md)
  --unscoped read|none with --subject: may it read the tenant's unscoped entries (default: read)
  --ttl SECONDS        lifetime, 1 to ${MAX_TOKEN_TTL_SECONDS} (default: MEMORY_RUNTIME_TOKEN_TTL_SECONDS, else 3600)
  -h, --help           show this help

Exit status: 0 printed, 1 no secret or a bad configuration, 2 bad arguments.
`;

const { values } = parseCli({
  usage: USAGE,
  options: {
    admin: { type: "boolean", default: false },
    tenant: { type: "string" },
    roles: { type: "string", default: "tenant_admin" },
    sub: { type: "string" },
    subject: { type: "string" },
    unscoped: { type: "string" },
    ttl: { type: "string" },
  },
});
if (!values.admin && !(values.tenant && ULID_RE.test(values.tenant)))
  usageExit(USAGE, "give --admin, or --tenant <tenant ULID> [--roles a,b] [--sub name] [--ttl seconds]");
if (values.subject !== undefined && (values.admin || !isScopeId(values.subject)))
  usageExit(USAGE, "--subject: a tenant token's subject id (1-128 of A-Z a-z 0-9 . _ : @ -)");
if (values.unscoped !== undefined && (values.subject === undefined || !isUnscoped(values.unscoped)))
  usageExit(USAGE, "--unscoped: read or none, with --subject");
const ttl =
  values.ttl === undefined ? undefined : intOption(USAGE, "ttl", values.ttl, 0, [1, MAX_TOKEN_TTL_SECONDS]);

try {
  const config = loadConfig(process.env);
  const ttlSeconds = ttl ?? config.tokenTtlSeconds;
  const tokens = new TokenService(config.jwtSecret, systemClock);
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
        subject: values.subject,
        unscoped: values.unscoped as UnscopedAccess | undefined,
      });
  console.log(token);
} catch (error) {
  console.error(`mint-token: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

function isUnscoped(value: string): value is UnscopedAccess {
  return (UNSCOPED_ACCESS as readonly string[]).includes(value);
}
