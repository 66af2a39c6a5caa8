/**
 * What the soak's clients were told, per tenant: the ledger the checks after each restart hold the
 * server to. Only answers count: an acknowledgement (200/201) is a promise the data exists, a
 * request the kill cut off promises nothing (it may or may not have landed, but never twice).
 */

/** What an event the runtime took ownership of must have become. */
export type EventFate = "entry" | "dead" | "either";

/** A dead letter a client was told about, and the replays it was given. */
export interface DeadLetterRecord {
  source: string;
  eventId: string;
  /** 1 + replays answered `dead`: attempts never go below it. */
  minAttempts: number;
  /** 1 + replays tried, answered or not: attempts never go above it. */
  maxAttempts: number;
  /** The entries a replay answered `replayed` with (every later answer must name the same ones). */
  replayed?: string[];
}

/** A delivery answered 200, kept to be sent again (its redelivery must write nothing). */
export interface PastDelivery {
  kind: "data" | "payments" | "bridge";
  /** The JSON value sent (the bytes are its JSON.stringify, as httpCall sends them). */
  body: unknown;
  events: number;
}

/** Keeps at most this many past deliveries per tenant for redelivery (older ones are replaced). */
const MAX_PAST = 400;

export function eventKey(source: string, eventId: string): string {
  return `${source} ${eventId}`;
}

export class TenantLedger {
  /** Entry ids answered 200/201, to the plural path they were written under (undefined: a webhook's). */
  readonly entries = new Map<string, string | undefined>();
  /** Acknowledged entries already read back one by one (each is, after the restart following its ack). */
  readonly readBack = new Set<string>();
  readonly events = new Map<string, EventFate>();
  readonly deadLetters = new Map<string, DeadLetterRecord>();
  readonly past: PastDelivery[] = [];

  constructor(
    readonly tenantId: string,
    readonly token: string,
  ) {}

  ackEntry(id: string, plural?: string): void {
    if (!this.entries.has(id) || plural) this.entries.set(id, plural);
  }

  /** An event answered as written (or as a duplicate of a written one). */
  ownEvent(source: string, eventId: string, fate: EventFate): void {
    const key = eventKey(source, eventId);
    const known = this.events.get(key);
    // A definite fate wins over "either"; an event never changes from entry to dead.
    if (!known || known === "either") this.events.set(key, fate);
  }

  ackDeadLetter(source: string, eventId: string): DeadLetterRecord {
    const key = eventKey(source, eventId);
    let record = this.deadLetters.get(key);
    if (!record) {
      record = { source, eventId, minAttempts: 1, maxAttempts: 1 };
      this.deadLetters.set(key, record);
    }
    this.ownEvent(source, eventId, "dead");
    return record;
  }

  remember(delivery: PastDelivery, random: () => number): void {
    if (this.past.length < MAX_PAST) this.past.push(delivery);
    else this.past[Math.floor(random() * MAX_PAST)] = delivery;
  }
}

/** Counts of one run, summed over cycles. */
export interface Figures {
  requests: number;
  acknowledged: number;
  /** Answered 4xx (a bridge queue full, a refused body): not acknowledged, and not a fault. */
  refused: number;
  /** No answer: in flight at the kill, or a later step of an operation sent after it. */
  unanswered: number;
  serverErrors: number;
  /** Acknowledgements per operation kind. */
  acked: Record<string, number>;
  /** Acknowledged entries found (listing and read by id), summed over restarts. */
  entriesChecked: number;
  deadLettersChecked: number;
  replaysChecked: number;
  /** Something acknowledged that is gone after a restart. */
  losses: string[];
  /** Something written twice (two entries of one event or idempotency key, a redelivery written). */
  doubles: string[];
  /** The service did not reopen cleanly (health counts disagree, a server that did not stop). */
  unclean: string[];
}

export function emptyFigures(): Figures {
  return {
    requests: 0,
    acknowledged: 0,
    refused: 0,
    unanswered: 0,
    serverErrors: 0,
    acked: {},
    entriesChecked: 0,
    deadLettersChecked: 0,
    replaysChecked: 0,
    losses: [],
    doubles: [],
    unclean: [],
  };
}
