/** The four specified webhook sources (CONTRACT §7), by id. */
import { crmSource } from "./crm.ts";
import { dataSource } from "./data.ts";
import { mailSource } from "./mail.ts";
import { marketingCrmSource } from "./marketing-crm.ts";
import type { SourceModule } from "./types.ts";

export const SOURCES: ReadonlyMap<string, SourceModule> = new Map(
  [crmSource, mailSource, dataSource, marketingCrmSource].map((s) => [s.id, s]),
);

export function findSource(id: string): SourceModule | undefined {
  return SOURCES.get(id);
}

/** A per-tenant variable's full name: `CRM_WEBHOOK_SECRET` → `CRM_WEBHOOK_SECRET_01JD...`. */
export function secretVariable(base: string, tenantId: string): string {
  return `${base}_${tenantId}`;
}

/** Full names of the source's required variables that are unset or empty (answer 503 naming them). */
export function missingSecrets(
  source: SourceModule,
  secrets: Readonly<Record<string, string>>,
  tenantId: string,
): string[] {
  return source.requiredSecrets
    .filter((name) => !secrets[name])
    .map((name) => secretVariable(name, tenantId));
}
