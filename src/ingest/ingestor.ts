import type { Embedder } from "../embedding/embedder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Secrets } from "../secrets.ts";
import type { JwksResolver, MapResult, SourceContext, SourceEvent, SourceModule } from "../sources/types.ts";
import type { CrmMappingHolder } from "./crm-mapping-holder.ts";
import type { IngestItem } from "./ingest-item.ts";

/** Mail notifications carry no content: the mail connector expands them through the mail API. */
export interface MailExpander {
  expand(
    tenantId: string,
    event: SourceEvent,
    ctx: SourceContext,
  ): Promise<{ result: MapResult; state?: Array<[string, unknown]> }>;
}

export interface IngestorDeps {
  secrets: Secrets;
  clock: Clock;
  embedder: Embedder;
  jwks: JwksResolver;
  crmMapping: CrmMappingHolder;
  mailExpander?: MailExpander;
}

const NEEDS_EXPANSION = "needs_expansion";

/**
 * Everything between a verified delivery and the tenant actor that needs no tenant state: the
 * source context, mapping (pure), mail expansion (I/O, in the mail connector) and embeddings
 * (I/O for the http embedder), so the tenant's mailbox never waits on the network.
 */
export class Ingestor {
  constructor(private readonly deps: IngestorDeps) {}

  /** The source's context; throws SecretMissing (503) when a required secret is absent. */
  context(source: SourceModule, tenantId: string): SourceContext {
    const secrets = this.deps.secrets.require(source.requiredSecrets, tenantId, source.optionalSecrets);
    return this.contextWith(secrets, tenantId);
  }

  /** A replay maps again without a signature check, so it takes whatever secrets exist. */
  replayContext(source: SourceModule, tenantId: string): SourceContext {
    const secrets: Record<string, string> = {};
    for (const base of [...source.requiredSecrets, ...source.optionalSecrets]) {
      const value = this.deps.secrets.get(base, tenantId);
      if (value !== undefined) secrets[base] = value;
    }
    return this.contextWith(secrets, tenantId);
  }

  async items(
    source: SourceModule,
    tenantId: string,
    events: SourceEvent[],
    ctx: SourceContext,
  ): Promise<IngestItem[]> {
    const items: IngestItem[] = [];
    for (const event of events) items.push(await this.item(source, tenantId, event, ctx));
    return items;
  }

  private async item(
    source: SourceModule,
    tenantId: string,
    event: SourceEvent,
    ctx: SourceContext,
  ): Promise<IngestItem> {
    let result = safeMap(source, event, ctx);
    let state: Array<[string, unknown]> | undefined;
    if (!result.ok && result.reason === NEEDS_EXPANSION) {
      const expanded = this.deps.mailExpander
        ? await this.deps.mailExpander.expand(tenantId, event, ctx)
        : { result: { ok: false as const, reason: "mail_api_not_configured" } };
      ({ result, state } = expanded);
    }
    return { event, result, state, vectors: result.ok ? await this.vectors(result) : undefined };
  }

  /** Connector entries get embeddings like API entries, except under `client` (callers own vectors). */
  private async vectors(
    result: Extract<MapResult, { ok: true }>,
  ): Promise<Array<Float32Array | undefined> | undefined> {
    if (this.deps.embedder.kind === "client" || result.drafts.length === 0) return undefined;
    return this.deps.embedder.embed(result.drafts.map((d) => d.draft.content));
  }

  private contextWith(secrets: Record<string, string>, tenantId: string): SourceContext {
    return {
      tenantId,
      secrets,
      now: () => this.deps.clock.now(),
      crmMapping: this.deps.crmMapping.current(),
      jwks: this.deps.jwks,
    };
  }
}

/** A mapper that throws on a payload it did not expect is a dead letter, not a 500. */
function safeMap(source: SourceModule, event: SourceEvent, ctx: SourceContext): MapResult {
  try {
    return source.map(event, ctx);
  } catch (error) {
    return {
      ok: false,
      reason: "mapping_failed",
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}
