import { readFileSync } from "node:fs";

/**
 * Reads the environment once, validated. Nothing else reads process.env; per-tenant secrets go
 * through src/secrets.ts, which is handed the same environment object.
 */
export type EmbedderKind = "hash" | "http" | "client";

export interface Config {
  jwtSecret: Uint8Array;
  port: number;
  host: string;
  dataDir: string;
  tokenTtlSeconds: number;
  crmMappingPath: string;
  /** True when the mapping path is the default one: a missing file then means "no custom mappings". */
  crmMappingIsDefault: boolean;
  embedder: EmbedderKind;
  embeddingDims: number;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  embeddingsApiKey?: string;
  bodyLimitBytes: number;
  actorIdleMs: number;
  auditLimit: number;
  mailJwksUrl: string;
  mailOauthTokenUrl: string;
  mailApiBaseUrl: string;
  crmLoginUrl?: string;
  version: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

export const MIN_SECRET_BYTES = 32;
export const DEFAULT_CRM_MAPPING = "./config/crm-mapping.json";

const HOW_TO_MAKE_A_SECRET =
  "Generate one with: export MEMORY_RUNTIME_JWT_SECRET=$(openssl rand -base64 48), " +
  "or run `bun run setup` and start with `bun run start:local` (it reads .secrets/jwt-secret)";

export function loadConfig(env: Env, version = "0.1.0"): Config {
  const secret = env.MEMORY_RUNTIME_JWT_SECRET || secretFromFile(env.MEMORY_RUNTIME_JWT_SECRET_FILE);
  if (!secret) {
    throw new ConfigError(
      `MEMORY_RUNTIME_JWT_SECRET is not set: tokens cannot be signed or checked. ${HOW_TO_MAKE_A_SECRET}`,
    );
  }
  const jwtSecret = new TextEncoder().encode(secret);
  if (jwtSecret.byteLength < MIN_SECRET_BYTES) {
    throw new ConfigError(
      `MEMORY_RUNTIME_JWT_SECRET is ${jwtSecret.byteLength} bytes; HS256 needs at least ${MIN_SECRET_BYTES}. ${HOW_TO_MAKE_A_SECRET}`,
    );
  }
  const embedder = oneOf(env, "MEMORY_RUNTIME_EMBEDDER", ["hash", "http", "client"], "hash");
  const config: Config = {
    jwtSecret,
    port: integer(env, "PORT", 8080, 0, 65535),
    host: env.HOST || "127.0.0.1",
    dataDir: env.MEMORY_RUNTIME_DATA_DIR || "./data",
    tokenTtlSeconds: integer(env, "MEMORY_RUNTIME_TOKEN_TTL_SECONDS", 3600, 1, 366 * 86400),
    crmMappingPath: env.MEMORY_RUNTIME_CRM_MAPPING || DEFAULT_CRM_MAPPING,
    crmMappingIsDefault: !env.MEMORY_RUNTIME_CRM_MAPPING,
    embedder,
    embeddingDims: integer(env, "MEMORY_RUNTIME_EMBEDDING_DIMS", 384, 1, 4096),
    embeddingsUrl: env.MEMORY_RUNTIME_EMBEDDINGS_URL || undefined,
    embeddingsModel: env.MEMORY_RUNTIME_EMBEDDINGS_MODEL || undefined,
    embeddingsApiKey: env.MEMORY_RUNTIME_EMBEDDINGS_API_KEY || undefined,
    bodyLimitBytes: integer(env, "MEMORY_RUNTIME_BODY_LIMIT_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
    actorIdleMs: integer(env, "MEMORY_RUNTIME_ACTOR_IDLE_SECONDS", 600, 1, 7 * 86400) * 1000,
    auditLimit: integer(env, "MEMORY_RUNTIME_AUDIT_LIMIT", 10_000, 10, 1_000_000),
    mailJwksUrl: env.MAIL_PUBSUB_JWKS_URL || "https://www.googleapis.com/oauth2/v3/certs",
    mailOauthTokenUrl: env.MAIL_OAUTH_TOKEN_URL || "https://oauth2.googleapis.com/token",
    mailApiBaseUrl: env.MAIL_API_BASE_URL || "https://gmail.googleapis.com",
    crmLoginUrl: env.CRM_LOGIN_URL || undefined,
    version: env.MEMORY_RUNTIME_VERSION || version,
  };
  if (embedder === "http" && !config.embeddingsUrl) {
    throw new ConfigError("MEMORY_RUNTIME_EMBEDDER=http needs MEMORY_RUNTIME_EMBEDDINGS_URL");
  }
  return config;
}

/** `MEMORY_RUNTIME_JWT_SECRET_FILE`: the secret kept in a file (0600) instead of the environment. */
function secretFromFile(path: string | undefined): string {
  if (!path) return "";
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "read error";
    throw new ConfigError(
      `MEMORY_RUNTIME_JWT_SECRET_FILE ${path} cannot be read (${code}). Run: bun run setup`,
    );
  }
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}
