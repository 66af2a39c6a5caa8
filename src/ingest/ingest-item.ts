import type { Static } from "@sinclair/typebox";
import type { IngestSummary as IngestSummarySchema } from "../models/dead-letter.ts";
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
}

/** CONTRACT §7's answer to a delivery (its schema: models/dead-letter.ts). */
export type IngestSummary = Static<typeof IngestSummarySchema>;

export interface Delivery {
  source: string;
  items: IngestItem[];
  /** Sanitised delivery headers (see headers.ts), kept with any dead letter. */
  headers: Record<string, string>;
}
