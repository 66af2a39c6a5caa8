import { analyticsSender } from "./analytics.ts";
import { calendarSender } from "./calendar.ts";
import { codeHostSender } from "./code-host.ts";
import { esignSender } from "./esign.ts";
import { formsSender } from "./forms.ts";
import { helpdeskSender } from "./helpdesk.ts";
import { incidentsSender } from "./incidents.ts";
import { issueTrackerSender } from "./issue-tracker.ts";
import { meetingsSender } from "./meetings.ts";
import { officeGraphSender } from "./office-graph.ts";
import { paymentsSender } from "./payments.ts";
import { projectTrackerSender } from "./project-tracker.ts";
import { schedulingSender } from "./scheduling.ts";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";
import { standardSender } from "./standard.ts";
import { storefrontSender } from "./storefront.ts";
import { supportChatSender } from "./support-chat.ts";
import { telephonySender } from "./telephony.ts";
import { warehouseSender } from "./warehouse.ts";

/** The fake sender of each of the eighteen sources signed by a platform of the table in SOURCES.md. */
export const SENDERS: readonly PlatformSender[] = [
  paymentsSender,
  codeHostSender,
  storefrontSender,
  helpdeskSender,
  issueTrackerSender,
  projectTrackerSender,
  supportChatSender,
  telephonySender,
  meetingsSender,
  incidentsSender,
  schedulingSender,
  formsSender,
  esignSender,
  officeGraphSender,
  analyticsSender,
  warehouseSender,
  standardSender,
  calendarSender,
];

/** Exactly these bytes, signed as validly as the platform would: its byte-exact signing, else its signing of the text. */
export function signAnyBytes(
  sender: PlatformSender,
  bytes: Uint8Array,
  opts: SignOptions,
): Promise<Signed> | Signed {
  if (sender.signRaw) return sender.signRaw(bytes, opts);
  return sender.sign(new TextDecoder().decode(bytes), opts);
}
