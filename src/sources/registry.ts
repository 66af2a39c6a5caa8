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
