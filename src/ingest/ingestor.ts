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
  ): Promise<{ result: MapResult; state?: Array<[string, unknown]>; stateSeq?: number }>;
}

export interface IngestorDeps {
  secrets: Secrets;
  clock: Clock;
  embedder: Embedder;
  jwks: JwksResolver;
  crmMapping: CrmMappingHolder;
  mailExpander?: MailExpander;
  /** Whether the tenant already owns `(source, event_id)`: a known event is not expanded again. */
  seen?: (tenantId: string, source: string, eventId: string) => Promise<boolean>;
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

  /** Maps events to items; `replay` maps a dead letter again, which the tenant already knows of. */
  async items(
    source: SourceModule,
    tenantId: string,
    events: SourceEvent[],
    ctx: SourceContext,
    replay = false,
  ): Promise<IngestItem[]> {
    const items: IngestItem[] = [];
    for (const event of events) items.push(await this.item(source, tenantId, event, ctx, replay));
    return items;
  }

  private async item(
    source: SourceModule,
    tenantId: string,
    event: SourceEvent,
    ctx: SourceContext,
    replay: boolean,
  ): Promise<IngestItem> {
    const result = safeMap(source, event, ctx);
    if (result.ok || result.reason !== NEEDS_EXPANSION) {
      return { event, result, vectors: result.ok ? await this.vectors(result) : undefined };
    }
    // Expansion consumes the mailbox history: a redelivered (already owned) event must not do it.
    if (!replay && (await this.deps.seen?.(tenantId, source.id, event.event_id))) return { event, result };
    const expanded = this.deps.mailExpander
      ? await this.deps.mailExpander.expand(tenantId, event, ctx)
      : { result: { ok: false as const, reason: "mail_api_not_configured" } };
    const vectors = expanded.result.ok ? await this.vectors(expanded.result) : undefined;
    return { event, ...expanded, vectors };
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
