/**
 * The checks after a restart, per tenant, against its ledger: every acknowledged entry is listed and
 * readable by id, every owned event has its entry or dead letter, every acknowledged dead letter is
 * listed with its attempts and replay result, nothing exists twice, and the tenant's health agrees
 * with what is listed (the vault and its index reopened whole).
 */
import { type HttpAnswer, httpCall } from "../helpers/server-process.ts";
import { eventKey, type Figures, type TenantLedger } from "./ledger.ts";

const ALL_PLURALS = ["facts", "decisions", "exceptions", "workflows", "relationships", "outcomes"];
/** The dead-letter list's page bound: a tenant with this many of one status cannot be checked whole. */
const DEAD_LETTER_LIMIT = 1000;

interface Listed {
  plural: string;
  content: string;
  source?: { system: string; event_id?: string };
}

interface ListedDeadLetter {
  event_id: string;
  source: string;
  attempts: number;
  status: "dead" | "replayed";
  entries?: string[];
}

/** A GET that counts a 5xx and turns any other failure into an `unclean` finding (undefined). */
async function read(
  base: string,
  path: string,
  token: string,
  figures: Figures,
): Promise<HttpAnswer | undefined> {
  const answer = await httpCall(base, "GET", path, { token });
  if (answer.status >= 500) figures.serverErrors++;
  if (answer.status === 200) return answer;
  figures.unclean.push(`GET ${path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  return undefined;
}

async function listEntries(base: string, t: TenantLedger, figures: Figures): Promise<Map<string, Listed>> {
  const listed = new Map<string, Listed>();
  for (const plural of ALL_PLURALS) {
    let cursor: string | null = null;
    do {
      const page = await read(
        base,
        `/memory/${plural}?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
        t.token,
        figures,
      );
      if (!page) break;
      for (const e of page.body.items) listed.set(e.id, { plural, content: e.content, source: e.source });
      cursor = page.body.next_cursor;
    } while (cursor);
  }
  return listed;
}

async function listDeadLetters(base: string, admin: string, t: TenantLedger, figures: Figures) {
  const listed = new Map<string, ListedDeadLetter>();
  for (const status of ["dead", "replayed"]) {
    const path = `/admin/webhooks/dead-letters/${t.tenantId}?status=${status}&limit=${DEAD_LETTER_LIMIT}`;
    const page = await read(base, path, admin, figures);
    const letters: ListedDeadLetter[] = page?.body.dead_letters ?? [];
    if (letters.length >= DEAD_LETTER_LIMIT)
      figures.unclean.push(`${t.tenantId}: too many ${status} letters to check`);
    for (const d of letters) {
      const key = eventKey(d.source, d.event_id);
      if (listed.has(key)) figures.doubles.push(`${t.tenantId}: dead letter ${key} listed twice`);
      listed.set(key, d);
    }
  }
  return listed;
}

/** Entries from events are one per event; API entries one per content (each operation's is unique). */
function identityOf(e: Listed): string {
  return e.source?.event_id ? eventKey(e.source.system, e.source.event_id) : `content ${e.content}`;
}

async function checkEntries(base: string, t: TenantLedger, listed: Map<string, Listed>, figures: Figures) {
  for (const [id] of t.entries) {
    const found = listed.get(id);
    if (!found) {
      figures.losses.push(`${t.tenantId}: acknowledged entry ${id} is not listed`);
      continue;
    }
    figures.entriesChecked++;
    if (t.readBack.has(id)) continue;
    const one = await httpCall(base, "GET", `/memory/${found.plural}/${id}`, { token: t.token });
    if (one.status === 200 && one.body.id === id) t.readBack.add(id);
    else figures.losses.push(`${t.tenantId}: acknowledged entry ${id} listed but reads ${one.status}`);
  }
  const byIdentity = new Map<string, string[]>();
  for (const [id, e] of listed) byIdentity.set(identityOf(e), [...(byIdentity.get(identityOf(e)) ?? []), id]);
  for (const [identity, ids] of byIdentity)
    if (ids.length > 1)
      figures.doubles.push(`${t.tenantId}: ${identity} written ${ids.length} times (${ids})`);
  return new Set(byIdentity.keys());
}

function checkDeadLetters(
  t: TenantLedger,
  dead: Map<string, ListedDeadLetter>,
  written: Set<string>,
  figures: Figures,
) {
  for (const [key, record] of t.deadLetters) {
    const found = dead.get(key);
    if (!found) {
      figures.losses.push(`${t.tenantId}: acknowledged dead letter ${key} is not listed`);
      continue;
    }
    figures.deadLettersChecked++;
    if (found.attempts < record.minAttempts)
      figures.losses.push(
        `${t.tenantId}: ${key} has ${found.attempts} attempts, ${record.minAttempts} acknowledged`,
      );
    if (found.attempts > record.maxAttempts)
      figures.doubles.push(
        `${t.tenantId}: ${key} has ${found.attempts} attempts, at most ${record.maxAttempts} tried`,
      );
    if (record.replayed || record.minAttempts > 1) figures.replaysChecked++;
    if (record.replayed && (found.status !== "replayed" || found.entries?.join() !== record.replayed.join()))
      figures.losses.push(
        `${t.tenantId}: replay of ${key} answered ${record.replayed}, now ${JSON.stringify(found)}`,
      );
  }
  for (const [key, found] of dead)
    if (found.status === "dead" && written.has(key))
      figures.doubles.push(`${t.tenantId}: ${key} is both a dead letter and written`);
}

function checkEvents(
  t: TenantLedger,
  dead: Map<string, ListedDeadLetter>,
  written: Set<string>,
  figures: Figures,
) {
  for (const [key, fate] of t.events) {
    const ok =
      fate === "entry"
        ? written.has(key)
        : fate === "dead"
          ? dead.has(key)
          : written.has(key) || dead.has(key);
    if (!ok)
      figures.losses.push(`${t.tenantId}: owned event ${key} has no ${fate === "either" ? "trace" : fate}`);
  }
}

async function checkHealth(
  base: string,
  t: TenantLedger,
  entries: number,
  deadLetters: number,
  figures: Figures,
) {
  const health = await read(base, `/tenants/${t.tenantId}/healthz`, t.token, figures);
  if (!health) return;
  const seen = {
    status: health.body.status,
    present: health.body.vault.present,
    entries: health.body.vault.entries,
    vectors: health.body.index.vectors,
    dead_letters: health.body.dead_letters,
  };
  const expected = { status: "active", present: true, entries, vectors: entries, dead_letters: deadLetters };
  if (JSON.stringify(seen) !== JSON.stringify(expected))
    figures.unclean.push(`${t.tenantId}: health ${JSON.stringify(seen)}, listed ${JSON.stringify(expected)}`);
}

/** Runs every check on one tenant; findings go into `figures`. */
export async function verifyTenant(
  base: string,
  admin: string,
  t: TenantLedger,
  figures: Figures,
): Promise<void> {
  const listed = await listEntries(base, t, figures);
  const written = await checkEntries(base, t, listed, figures);
  const dead = await listDeadLetters(base, admin, t, figures);
  checkDeadLetters(t, dead, written, figures);
  checkEvents(t, dead, written, figures);
  await checkHealth(base, t, listed.size, dead.size, figures);
}
