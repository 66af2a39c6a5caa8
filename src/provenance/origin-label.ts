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
