/**
 * The mail ingest run: threads of a label (or matching a search expression) over the last N days,
 * read whole through the shared mail client, written as one Markdown file per day.
 *
 * Read-only by construction: it lists labels, lists threads and gets threads, all GETs; attachment
 * bodies are never asked for. Each message goes in the file of the day it was received (in the
 * chosen time zone), so a thread spanning two days appears in both files with that day's messages.
 * Every day of the range is rewritten whole; a day left without messages loses its old file.
 */
import type { Clock } from "../runtime/clock.ts";
import {
  type MailApiClient,
  MailApiError,
  type MailMessage,
  type MailThread,
  type ThreadQuery,
} from "../sources/mail/api.ts";
import { dayOf, lastDays, searchWindow } from "./days.ts";
import { LabelNotFound } from "./errors.ts";
import { dayFilePath, type Selector, slugOf } from "./layout.ts";
import { renderDay } from "./render.ts";
import { withRetry } from "./retry.ts";
import { removeDayFile, writeDayFile } from "./write-day.ts";

export type MailReader = Pick<MailApiClient, "listLabels" | "listThreadsPage" | "getThread">;

export interface IngestPlan {
  /** The mailbox, or "me" for the account the credentials belong to. */
  email: string;
  selector: Selector;
  /** How many days, ending with `until`. */
  days: number;
  /** The last day (YYYY-MM-DD); today in `timeZone` by the clock when absent. */
  until?: string;
  timeZone: string;
  outDir: string;
}

export interface IngestDeps {
  api: MailReader;
  clock: Clock;
  /** Threads read at once. */
  concurrency?: number;
  random?: () => number;
}

export interface IngestReport {
  folder: string;
  days: string[];
  threads: number;
  messages: number;
  /** Paths of the day files, by what happened to them. */
  written: string[];
  unchanged: string[];
  removed: string[];
}

/** Not mail that happened (drafts), or mail the mailbox's owner put aside (spam, trash). */
const LEFT_OUT = new Set(["DRAFT", "SPAM", "TRASH"]);

/**
 * The thread listing's parameters, the title of the files and their folder. A label is named as the
 * mailbox spells it, whether it was given by name (in any case) or by id, so it has one folder.
 */
async function threadQuery(plan: IngestPlan, days: string[], deps: IngestDeps) {
  const { after, before } = searchWindow(days);
  const window = `after:${after} before:${before}`;
  if (plan.selector.kind === "query") {
    const query: ThreadQuery = { q: `(${plan.selector.query}) ${window}` };
    return { query, title: `Search ${plan.selector.query}`, folder: slugOf(plan.selector.query) };
  }
  const wanted = plan.selector.label;
  const labels = await withRetry(() => deps.api.listLabels(plan.email), deps);
  // Label names are unique regardless of case; an id (INBOX, Label_12) is taken as given.
  const label =
    labels.find((l) => l.id === wanted) ?? labels.find((l) => l.name.toLowerCase() === wanted.toLowerCase());
  if (!label) throw new LabelNotFound(`no label "${wanted}" in the mailbox ${plan.email}`);
  const query: ThreadQuery = { q: window, labelIds: [label.id] };
  return { query, title: `Label ${label.name}`, folder: slugOf(label.name) };
}

/** Every page, each retried on its own; a thread listed twice (the mailbox moved meanwhile) counts once. */
async function listThreadIds(plan: IngestPlan, query: ThreadQuery, deps: IngestDeps): Promise<string[]> {
  const ids = new Set<string>();
  const tokens = new Set<string>();
  let pageToken: string | undefined;
  do {
    const token = pageToken;
    const page = await withRetry(() => deps.api.listThreadsPage(plan.email, query, token), deps);
    for (const t of page.threads) ids.add(t.id);
    pageToken = page.nextPageToken;
    // A server repeating a page token would page forever.
    if (pageToken && tokens.has(pageToken))
      throw new MailApiError("list threads: a page token came back twice", 502);
    if (pageToken) tokens.add(pageToken);
  } while (pageToken);
  return [...ids];
}

/** Reads threads a few at a time; the first failure stops the others taking more. */
async function readThreads(plan: IngestPlan, ids: string[], deps: IngestDeps): Promise<MailThread[]> {
  const threads: MailThread[] = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < ids.length) {
      const id = ids[next++]!;
      try {
        const thread = await withRetry(() => deps.api.getThread(plan.email, id), deps);
        if (thread) threads.push(thread);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Math.max(1, Math.min(deps.concurrency ?? 4, ids.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return threads;
}

function kept(message: MailMessage): boolean {
  const at = Number(message.internalDate);
  return (
    typeof message.id === "string" && Number.isFinite(at) && !message.labelIds?.some((l) => LEFT_OUT.has(l))
  );
}

/** The messages of each day of the range, each message once. */
export function messagesByDay(threads: MailThread[], days: string[], timeZone: string) {
  const byDay = new Map<string, MailMessage[]>(days.map((d) => [d, []]));
  const seen = new Set<string>();
  for (const thread of threads) {
    for (const message of (thread.messages ?? []).filter(kept)) {
      const day = byDay.get(dayOf(Number(message.internalDate), timeZone));
      if (!day || seen.has(message.id)) continue;
      seen.add(message.id);
      day.push({ ...message, threadId: message.threadId ?? thread.id });
    }
  }
  return byDay;
}

/**
 * Per thread, every day it has messages on, in or out of the range, oldest first: a day's file
 * then says where the rest of the thread is, and does not depend on how many days a run covered.
 */
export function threadDaysOf(threads: MailThread[], timeZone: string): Map<string, string[]> {
  const threadDays = new Map<string, string[]>();
  for (const thread of threads) {
    const days = (thread.messages ?? []).filter(kept).map((m) => dayOf(Number(m.internalDate), timeZone));
    threadDays.set(thread.id, [...new Set(days)].sort());
  }
  return threadDays;
}

export async function ingestMail(plan: IngestPlan, deps: IngestDeps): Promise<IngestReport> {
  const days = lastDays(plan.until ?? dayOf(deps.clock.now(), plan.timeZone), plan.days);
  const { query, title, folder } = await threadQuery(plan, days, deps);
  const threads = await readThreads(plan, await listThreadIds(plan, query, deps), deps);
  const byDay = messagesByDay(threads, days, plan.timeZone);
  const threadDays = threadDaysOf(threads, plan.timeZone);
  const report: IngestReport = {
    folder,
    days,
    threads: new Set([...byDay.values()].flat().map((m) => m.threadId)).size,
    messages: 0,
    written: [],
    unchanged: [],
    removed: [],
  };
  for (const [day, messages] of byDay) {
    const path = dayFilePath(plan.outDir, folder, day);
    if (messages.length === 0) {
      if (await removeDayFile(path)) report.removed.push(path);
      continue;
    }
    report.messages += messages.length;
    const content = renderDay({ title, day, timeZone: plan.timeZone, messages, threadDays });
    report[await writeDayFile(path, content)].push(path);
  }
  return report;
}
