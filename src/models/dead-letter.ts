/** A source event the runtime owns but could not turn into entries (CONTRACT §7). */
export interface DeadLetter {
  event_id: string;
  tenant_id: string;
  source: string;
  event_type: string;
  received_at: string;
  attempts: number;
  last_error: string;
  status: "dead" | "replayed";
  /** The source event as parsed from the delivery: what a replay maps again. */
  payload: unknown;
  /** Delivery headers without credentials or signatures. */
  headers: Record<string, string>;
  /** Ids written when a replay succeeded. */
  entries?: string[];
  replayed_at?: string;
}

export const DEAD_LETTER_STATUSES = ["dead", "replayed"] as const;
