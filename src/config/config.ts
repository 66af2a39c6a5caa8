import { readFileSync } from "node:fs";
import { type ExtractorSettings, extractorSettingsOf } from "../conversations/model/extractor-settings.ts";
import { USE_LITE_DIMS } from "../embedding/use-lite.ts";
import {
  DEFAULT_HOLD_MS,
  DEFAULT_MAX_BUCKETS,
  type RateLimitSettings,
  RateLimitSyntaxError,
  rateLimitSettingsOf,
} from "../http/rate-limit-settings.ts";
import { MAX_TOKEN_TTL_SECONDS } from "../models/role.ts";
import { type RerankSettings, rerankSettingsOf } from "../search/controls/rerank/rerank-settings.ts";
import {
  TelemetrySettingError,
  type TelemetrySettings,
  telemetrySettingsOf,
} from "../telemetry/telemetry-settings.ts";

/**
 * Reads the environment once, validated. Nothing else reads process.env; per-tenant secrets go
 * through src/secrets/secrets.ts, which is handed the same environment object.
 */
export type EmbedderKind = "hash" | "http" | "client" | "local" | "static" | "tiered";

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
  /** The largest import body (`POST /admin/tenants/{id}/import`), streamed, never held whole. */
  importLimitBytes: number;
  actorIdleMs: number;
  /** Tenants whose vaults may be open at once; undefined: derived from the open-file limit at start. */
  maxOpenTenants?: number;
  auditLimit: number;
  /** The size ceiling of each LMDB environment (a tenant vault, the system store), in bytes. */
  vaultMaxBytes: number;
  /** Writes that add data are refused while the data directory's disk has less than this free. */
  diskReserveBytes: number;
  mailJwksUrl: string;
  mailOauthTokenUrl: string;
  mailApiBaseUrl: string;
  crmLoginUrl?: string;
  /** Per-tenant secrets in a dotenv file beside the environment (re-read on SIGHUP and POST /admin/reload). */
  secretsFile?: string;
  /** Bridge events queued per tenant at most; past it `bridge.deliver` refuses. */
  bridgeQueueLimit: number;
  /** A CRM event stream silent (no event, no heartbeat) this long is reconnected. */
  streamSilenceMs: number;
  /** A live memory stream (`GET /memory/stream`) sends a `: ping` comment this often. */
  streamHeartbeatMs: number;
  /** Outbound events: consecutive failed attempts that disable a subscription. */
  outboundMaxFailures: number;
  /** Outbound events: how long one delivery attempt may take. */
  outboundTimeoutMs: number;
  /** Outbound events: the longest wait between two attempts (before jitter). */
  outboundRetryMaxMs: number;
  /** Per-tenant rate limits by route class, with per-tenant overrides (src/http/rate-limit.ts). */
  rateLimits: RateLimitSettings;
  /** How long the delivery log and dead letters are kept (docs/webhook-operations.md#retention), in days. */
  webhookRetention: { deliveryLogDays: number; deadLetterDays: number; deadDays?: number };
  /** The access log's level (`MEMORY_RUNTIME_LOG`) and tracing (the `OTEL_*` variables): docs/observability.md. */
  telemetry: TelemetrySettings;
  /** The re-ranking stage of search (`MEMORY_RUNTIME_RERANKER` …): src/search/controls/rerank/. */
  reranker: RerankSettings;
  /** The conversation extractor (`MEMORY_RUNTIME_EXTRACTOR` …): src/conversations/model/. */
  extractor: ExtractorSettings;
  /** At a stop: how long requests in flight may take to finish before their connections are closed. */
  shutdownTimeoutMs: number;
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
  const embedder = oneOf(
    env,
    "MEMORY_RUNTIME_EMBEDDER",
    ["hash", "http", "client", "local", "static", "tiered"],
    DEFAULT_EMBEDDER,
  );
  const config: Config = {
    jwtSecret,
    port: integer(env, "PORT", 8080, 0, 65535),
    host: env.HOST || "127.0.0.1",
    dataDir: env.MEMORY_RUNTIME_DATA_DIR || "./data",
    tokenTtlSeconds: integer(env, "MEMORY_RUNTIME_TOKEN_TTL_SECONDS", 3600, 1, MAX_TOKEN_TTL_SECONDS),
    crmMappingPath: env.MEMORY_RUNTIME_CRM_MAPPING || DEFAULT_CRM_MAPPING,
    crmMappingIsDefault: !env.MEMORY_RUNTIME_CRM_MAPPING,
    embedder,
    embeddingDims: embeddingDims(env, embedder),
    embeddingsUrl: env.MEMORY_RUNTIME_EMBEDDINGS_URL || undefined,
    embeddingsModel: env.MEMORY_RUNTIME_EMBEDDINGS_MODEL || undefined,
    embeddingsApiKey: env.MEMORY_RUNTIME_EMBEDDINGS_API_KEY || undefined,
    bodyLimitBytes: integer(env, "MEMORY_RUNTIME_BODY_LIMIT_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
    importLimitBytes: integer(env, "MEMORY_RUNTIME_IMPORT_LIMIT_BYTES", 8 * 1024 ** 3, 1024, 9_999_999_999),
    actorIdleMs: integer(env, "MEMORY_RUNTIME_ACTOR_IDLE_SECONDS", 600, 1, 7 * 86400) * 1000,
    maxOpenTenants: optionalInteger(env, "MEMORY_RUNTIME_MAX_OPEN_TENANTS", 1, 1_000_000),
    auditLimit: integer(env, "MEMORY_RUNTIME_AUDIT_LIMIT", 10_000, 10, 1_000_000),
    vaultMaxBytes: integer(env, "MEMORY_RUNTIME_VAULT_MAX_MB", 65_536, 1, 16_777_216) * 1024 * 1024,
    diskReserveBytes: integer(env, "MEMORY_RUNTIME_DISK_RESERVE_MB", 64, 0, 1_048_576) * 1024 * 1024,
    mailJwksUrl: env.MAIL_PUBSUB_JWKS_URL || "https://www.googleapis.com/oauth2/v3/certs",
    mailOauthTokenUrl: env.MAIL_OAUTH_TOKEN_URL || "https://oauth2.googleapis.com/token",
    mailApiBaseUrl: env.MAIL_API_BASE_URL || "https://gmail.googleapis.com",
    crmLoginUrl: env.CRM_LOGIN_URL || undefined,
    secretsFile: env.MEMORY_RUNTIME_SECRETS_FILE || undefined,
    bridgeQueueLimit: integer(env, "MEMORY_RUNTIME_BRIDGE_QUEUE", 1000, 1, 1_000_000),
    streamSilenceMs: integer(env, "MEMORY_RUNTIME_STREAM_SILENCE_SECONDS", 120, 1, 86400) * 1000,
    streamHeartbeatMs: integer(env, "MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS", 15, 1, 3600) * 1000,
    outboundMaxFailures: integer(env, "MEMORY_RUNTIME_OUTBOUND_MAX_FAILURES", 10, 1, 1000),
    outboundTimeoutMs: integer(env, "MEMORY_RUNTIME_OUTBOUND_TIMEOUT_SECONDS", 10, 1, 300) * 1000,
    outboundRetryMaxMs: integer(env, "MEMORY_RUNTIME_OUTBOUND_RETRY_MAX_SECONDS", 3600, 1, 86400) * 1000,
    rateLimits: rateLimits(env),
    webhookRetention: {
      deliveryLogDays: integer(env, "MEMORY_RUNTIME_DELIVERY_LOG_DAYS", 30, 1, 36_500),
      deadLetterDays: integer(env, "MEMORY_RUNTIME_DEAD_LETTER_DAYS", 90, 1, 36_500),
      // Unset: a dead letter never replayed is kept until it is replayed or erased.
      deadDays: optionalInteger(env, "MEMORY_RUNTIME_DEAD_LETTER_DEAD_DAYS", 1, 36_500),
    },
    telemetry: telemetry(env, env.MEMORY_RUNTIME_VERSION || version),
    reranker: rerankSettingsOf(env, { integer, oneOf, refuse }),
    extractor: extractorSettingsOf(env, { integer, oneOf, refuse }),
    shutdownTimeoutMs: integer(env, "MEMORY_RUNTIME_SHUTDOWN_TIMEOUT_SECONDS", 20, 1, 3600) * 1000,
    version: env.MEMORY_RUNTIME_VERSION || version,
  };
  if (embedder === "http" && !config.embeddingsUrl) {
    throw new ConfigError("MEMORY_RUNTIME_EMBEDDER=http needs MEMORY_RUNTIME_EMBEDDINGS_URL");
  }
  return config;
}

/**
 * The embedder when MEMORY_RUNTIME_EMBEDDER is unset: `tiered` (issue 30), both tiers in the local
 * model's 512-d space, offline: every write is stored with the static table's vector in its commit
 * (microseconds, so nothing waits for a vector and a search never falls back to words only), and
 * the sentence model (USE-lite) replaces it in the background; queries use the table. It was
 * `local` (the model alone, vectors made after the write) until then, and `hash` before that; both
 * stay one variable away (docs/embedding-and-search.md, "The default: two tiers").
 */
export const DEFAULT_EMBEDDER: EmbedderKind = "tiered";

const DEFAULT_EMBEDDING_DIMS = 384;

/**
 * The vector length. The local model's is fixed (512), and so is the static table's, distilled
 * into the model's space: it is the default with `local`, `static` and `tiered`, and any other value is
 * refused rather than overridden, since an operator who set it expects it to hold.
 */
function embeddingDims(env: Env, embedder: EmbedderKind): number {
  const name = "MEMORY_RUNTIME_EMBEDDING_DIMS";
  if (embedder !== "local" && embedder !== "static" && embedder !== "tiered")
    return integer(env, name, DEFAULT_EMBEDDING_DIMS, 1, 4096);
  const dims = integer(env, name, USE_LITE_DIMS, 1, 4096);
  if (dims !== USE_LITE_DIMS) {
    // Unset, the embedder is the default: the operator may be counting on the old default's dims.
    const chosen = env.MEMORY_RUNTIME_EMBEDDER
      ? `MEMORY_RUNTIME_EMBEDDER=${embedder}`
      : `the default embedder, ${embedder},`;
    const other = env.MEMORY_RUNTIME_EMBEDDER ? "" : ", or set MEMORY_RUNTIME_EMBEDDER (hash, http, client)";
    throw new ConfigError(
      `${chosen} makes vectors of ${USE_LITE_DIMS} dimensions, but ${name} is ${dims}: ` +
        `unset ${name} or set it to ${USE_LITE_DIMS}${other}`,
    );
  }
  return dims;
}

function rateLimits(env: Env): RateLimitSettings {
  const maxBuckets = integer(env, "MEMORY_RUNTIME_RATE_LIMIT_BUCKETS", DEFAULT_MAX_BUCKETS, 100, 10_000_000);
  const holdMs = integer(env, "MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS", DEFAULT_HOLD_MS, 0, 10_000);
  try {
    return rateLimitSettingsOf(env, { maxBuckets, holdMs });
  } catch (error) {
    if (error instanceof RateLimitSyntaxError) throw new ConfigError(error.message);
    throw error;
  }
}

function telemetry(env: Env, version: string): TelemetrySettings {
  try {
    return telemetrySettingsOf(env, version);
  } catch (error) {
    if (error instanceof TelemetrySettingError) throw new ConfigError(error.message);
    throw error;
  }
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

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : integer(env, name, min, min, max);
}

function refuse(message: string): never {
  throw new ConfigError(message);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}
