import type { Config } from "../config.ts";
import type { Embedder } from "../embedding/embedder.ts";
import type { Authenticator, Guard } from "../http/auth.ts";
import type { TokenService } from "../http/tokens.ts";
import type { CrmMappingHolder } from "../ingest/crm-mapping-holder.ts";
import type { Ingestor } from "../ingest/ingestor.ts";
import type { SystemProtocol } from "../models/system-protocol.ts";
import type { TenantProtocol } from "../models/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Secrets } from "../secrets.ts";
import type { SystemStore } from "../vault/system-store.ts";

/** Everything a route plugin may use. Routes validate, authorise and ask an actor: nothing more. */
export interface Deps {
  config: Config;
  clock: Clock;
  store: SystemStore;
  tokens: TokenService;
  auth: Authenticator;
  guard: Guard;
  secrets: Secrets;
  embedder: Embedder;
  ingestor: Ingestor;
  crmMapping: CrmMappingHolder;
  system: ActorRef<SystemProtocol>;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  startedAt: number;
}
