/**
 * Trust on the way in and out of MemoryService: what a token's write carries (its provenance, and
 * the categories its roles let it override), and the refusal of the trust rule as an audited 403:
 * a denial naming `memory:override:<category>` is recorded before the answer, and the problem
 * document names the entry and both trust levels (`entry_id`, `entry_trust`, `writer_trust`).
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { allowedCategories, memoryPermission } from "../auth/permissions.ts";
import type { Forbidden } from "../errors/domain-errors.ts";
import type { Provenance } from "../models/origin.ts";
import { callerProvenance } from "./trust.ts";
import { type Overrides, TrustOutranked } from "./trust-rule.ts";

/** What a token's write carries into the tenant actor. */
export function writerStamp(guard: Guard, caller: Caller): { provenance: Provenance; overrides: Overrides } {
  return {
    provenance: callerProvenance(caller.principal),
    overrides: allowedCategories(guard.permissionsOf(caller.principal), "override"),
  };
}

/** Runs a write; a TrustOutranked refusal becomes a recorded denial (awaited before the 403 is sent). */
export async function auditedTrust<T>(guard: Guard, caller: Caller, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof TrustOutranked) throw trustDenial(guard, caller, error);
    throw error;
  }
}

function trustDenial(guard: Guard, caller: Caller, refusal: TrustOutranked): Forbidden {
  const permission = memoryPermission("override", refusal.category);
  const denied = guard.deny(caller.principal, caller.req, permission, refusal.message);
  denied.extensions = refusal.extensions;
  return denied;
}
