/**
 * The rule that keeps trust from being laundered by a write: superseding, correcting or retracting
 * an entry of higher trust than the writer's needs `memory:override` (narrowable to a category,
 * `memory:override:facts`), whatever the writer's other permissions. Checked by the tenant actor
 * against the entry as stored; MemoryService turns the refusal into an audited 403.
 */
import { AppError } from "../errors/domain-errors.ts";
import type { Category } from "../models/category.ts";
import type { Trust } from "../models/origin.ts";
import { outranks } from "./trust.ts";

export type TrustAction = "supersede" | "correct" | "retract";

/**
 * What a token may override: the categories its roles grant `memory:override` on. Absent on the
 * tenant actor's internal writes (connectors, tests of the actor), which the rule does not bind.
 */
export type Overrides = readonly Category[];

/** The writer's trust is below the entry's and no role grants the override: MemoryService audits it. */
export class TrustOutranked extends AppError {
  override readonly status = 403;
  override readonly code = "forbidden";
  override readonly title = "Forbidden";
  constructor(
    readonly entryId: string,
    readonly category: Category,
    readonly entryTrust: Trust,
    readonly writerTrust: Trust,
    readonly action: TrustAction,
  ) {
    super(
      `entry ${entryId} (${category}) has trust ${entryTrust}, above the writer's ${writerTrust}: to ${action} it needs memory:override`,
    );
    this.extensions = { entry_id: entryId, entry_trust: entryTrust, writer_trust: writerTrust };
  }
}

/** Throws TrustOutranked when `writer` may not `action` the entry. */
export function checkTrust(
  entry: { id: string; category: Category; trust: Trust },
  writer: Trust,
  overrides: Overrides | undefined,
  action: TrustAction,
): void {
  if (overrides === undefined || !outranks(entry.trust, writer)) return;
  if (overrides.includes(entry.category)) return;
  throw new TrustOutranked(entry.id, entry.category, entry.trust, writer, action);
}
