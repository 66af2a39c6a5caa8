import type { Static } from "@sinclair/typebox";
import type { IngestSummary as IngestSummarySchema } from "../models/dead-letter.ts";
import type { DeliveryVia } from "../models/webhook-operations.ts";
import type { DeliveryOrigin } from "../provenance/source-origin.ts";
import type { MapResult, SourceEvent } from "../sources/types.ts";

/**
 * One source event ready for the tenant actor: already mapped (mapping is pure or, for mail, done
 * by the connector), its drafts' vectors computed outside the mailbox, plus connector state to store
 * in the same commit (replay ids, history ids).
 */
export interface IngestItem {
  event: SourceEvent;
  result: MapResult;
  vectors?: Array<Float32Array | undefined>;
  state?: Array<[string, unknown]>;
  /** Connector snapshots carry a sequence; an older one never overwrites a newer one. */
  stateSeq?: number;
  /**
   * Made by a connector's expansion (mail), whose state moves the connector's mark: held while the
   * source is paused, such an event keeps none of it, and is expanded again when released.
   */
  expanded?: boolean;
}

/** CONTRACT §7's answer to a delivery (its schema: models/dead-letter.ts). */
export type IngestSummary = Static<typeof IngestSummarySchema>;

/**
 * What the tenant actor answers a delivery: the summary, and whether the source was paused (its
 * new events then `held`, by id, and nothing else written).
 */
export interface IngestReply extends IngestSummary {
  paused: boolean;
  held: string[];
}

export interface Delivery {
  source: string;
  items: IngestItem[];
  /** Sanitised delivery headers (see headers.ts), kept with any dead letter. */
  headers: Record<string, string>;
  /** The X-Request-Id of the request that carried it, for the delivery log (none: a connector's). */
  requestId?: string | null;
  /** How the events came this time (the delivery log's `via`; default `delivery`). */
  via?: DeliveryVia;
  /** A webhook delivery's verification, stamped on its events' entries (provenance/source-origin.ts). */
  origin?: DeliveryOrigin;
}
