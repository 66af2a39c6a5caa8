/**
 * The 22 webhook sources (SPEC §4), by id: the four of CONTRACT §7 and the eighteen of SOURCES.md.
 */

import { analyticsSource } from "./analytics.ts";
import { calendarSource } from "./calendar.ts";
import { codeHostSource } from "./code-host.ts";
import { crmSource } from "./crm/source.ts";
import { dataSource } from "./data.ts";
import { esignSource } from "./esign.ts";
import { formsSource } from "./forms.ts";
import { helpdeskSource } from "./helpdesk.ts";
import { incidentsSource } from "./incidents.ts";
import { issueTrackerSource } from "./issue-tracker.ts";
import { mailSource } from "./mail/source.ts";
import { marketingCrmSource } from "./marketing-crm.ts";
import { meetingsSource } from "./meetings.ts";
import { officeGraphSource } from "./office-graph.ts";
import { paymentsSource } from "./payments.ts";
import { projectTrackerSource } from "./project-tracker.ts";
import { schedulingSource } from "./scheduling.ts";
import { standardSource } from "./standard.ts";
import { storefrontSource } from "./storefront.ts";
import { supportChatSource } from "./support-chat.ts";
import { telephonySource } from "./telephony.ts";
import type { SourceModule } from "./types.ts";
import { warehouseSource } from "./warehouse.ts";

export const SOURCES: ReadonlyMap<string, SourceModule> = new Map(
  [
    crmSource,
    mailSource,
    dataSource,
    marketingCrmSource,
    paymentsSource,
    codeHostSource,
    storefrontSource,
    helpdeskSource,
    issueTrackerSource,
    projectTrackerSource,
    supportChatSource,
    telephonySource,
    meetingsSource,
    incidentsSource,
    schedulingSource,
    formsSource,
    esignSource,
    officeGraphSource,
    analyticsSource,
    warehouseSource,
    calendarSource,
    standardSource,
  ].map((s) => [s.id, s]),
);

/** The source identifiers, in the order above (the OpenAPI document's enum). */
export const SOURCE_IDS: readonly string[] = [...SOURCES.keys()];

export function findSource(id: string): SourceModule | undefined {
  return SOURCES.get(id);
}
