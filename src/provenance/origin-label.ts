/** How an origin reads in text (MCP evidence frames, the dashboard): what wrote the entry, in one line. */
import type { Origin } from "../models/origin.ts";

/** One line naming an origin (every value JSON-escaped: a sub or an event id is text from outside too). */
export function originLabel(origin: Origin): string {
  const q = JSON.stringify;
  switch (origin.kind) {
    case "source":
      return `source ${q(origin.source)} event ${q(origin.event_id)}, verified by ${origin.scheme}`;
    case "operator":
      return `the tenant's operator ${q(origin.sub)}`;
    case "agent":
      return `agent ${q(origin.sub)} (its own statement)`;
    case "bridge":
      return `the messaging bridge, event ${q(origin.event_id)}`;
    case "extracted":
      return `extracted by ${q(origin.by)} from ${origin.from.length} record(s): ${origin.from.map((id) => q(id)).join(", ")}`;
    case "legacy":
      return `written before origins were recorded, by ${q(origin.created_by)}${origin.source ? ` from source ${q(origin.source)}` : ""}`;
  }
}

/** A value that reads bare in a label: anything else (a space, a quote, a line break) is JSON-quoted. */
const BARE = /^[\w.@/:+-]{1,64}$/;

/**
 * The origin in a few tokens, for a context pack's label (`agent:bob`, `source:payments/stripe-signature`,
 * `operator`, `extracted:rules-v1`): the kind and the one name that tells it apart. The pack's
 * `entries` carry the whole origin. A value from outside is bare only when it cannot break the line.
 */
export function shortOrigin(origin: Origin): string {
  const v = (s: string) => (BARE.test(s) ? s : JSON.stringify(s));
  switch (origin.kind) {
    case "source":
      return `source:${v(origin.source)}/${v(origin.scheme)}`;
    case "operator":
      return "operator";
    case "agent":
      return `agent:${v(origin.sub)}`;
    case "bridge":
      return `bridge:${v(origin.source)}`;
    case "extracted":
      return `extracted:${v(origin.by)}`;
    case "legacy":
      return `legacy:${v(origin.created_by)}`;
  }
}
