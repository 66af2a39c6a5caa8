/**
 * Plays the timeline into a fresh tenant through the real routes: each webhook event signed as its
 * platform signs it (`POST /webhooks/{source}/{tenant_id}`), each agent write through
 * `POST /memory/{category}` with its `supersedes` / `corrects`. Answers which entry each step made.
 */
import { createHash, randomBytes } from "node:crypto";
import { HELPDESK_SECRET, helpdeskSender } from "../../../test/fakes/senders/helpdesk.ts";
import { PAYMENTS_SECRET, paymentsSender } from "../../../test/fakes/senders/payments.ts";
import { ServiceCallFailed, ServiceClient } from "../service-client.ts";
import type { EvalRuntime } from "../service-retriever.ts";
import { embedded } from "../service-retriever.ts";
import type { Step, WebhookSource } from "./timeline.ts";
import type { BusinessWorld } from "./world.ts";

const MARKETING_SECRET = "marketing-crm-client-secret-for-the-eval";
const PLURAL = { fact: "facts", decision: "decisions" } as const;

export interface Played {
  token: string;
  tenantId: string;
  /** Step key → the id of the entry it wrote. */
  ids: Map<string, string>;
  /** When the corrections had not been written yet (the as_of of the past-state questions). */
  beforeCorrections: string;
  webhooks: number;
  writes: number;
  duplicates: number;
}

interface WebhookSummary {
  entries: string[];
  duplicates: number;
  dead_lettered: unknown[];
}

async function signed(source: WebhookSource, body: string, url: string) {
  if (source === "payments") return paymentsSender.sign(body, { now: Date.now(), url });
  if (source === "helpdesk") return helpdeskSender.sign(body, { now: Date.now(), url });
  // The marketing CRM's v1 signature: SHA-256 hex of the client secret followed by the body.
  const signature = createHash("sha256").update(MARKETING_SECRET).update(body).digest("hex");
  return { headers: { "content-type": "application/json", "x-hubspot-signature": signature }, body };
}

class Player {
  readonly ids = new Map<string, string>();
  duplicates = 0;

  constructor(
    private readonly rt: EvalRuntime,
    private readonly token: string,
    private readonly tenantId: string,
  ) {}

  async webhook(step: Extract<Step, { kind: "webhook" }>): Promise<void> {
    const url = `http://localhost/webhooks/${step.source}/${this.tenantId}`;
    // The CRM sends arrays of events; one event a delivery keeps the reordering exact.
    const body = JSON.stringify(step.source === "marketing_crm" ? [step.event] : step.event);
    const { headers } = await signed(step.source, body, url);
    const res = await this.rt.runtime.app.handle(new Request(url, { method: "POST", headers, body }));
    const text = await res.text();
    if (res.status !== 200)
      throw new ServiceCallFailed(`${step.source} ${step.key}: ${res.status} ${text.slice(0, 300)}`);
    const summary = JSON.parse(text) as WebhookSummary;
    if (summary.dead_lettered.length)
      throw new ServiceCallFailed(
        `${step.key} was dead-lettered: ${JSON.stringify(summary.dead_lettered).slice(0, 300)}`,
      );
    this.duplicates += summary.duplicates;
    if (summary.entries[0]) this.ids.set(step.key, summary.entries[0]);
  }

  async write(client: ServiceClient, step: Extract<Step, { kind: "write" }>): Promise<void> {
    const link = (key: string | undefined) => (key ? this.ids.get(key) : undefined);
    const entry = await client.expect<{ id: string }>(
      [201],
      "POST",
      `/memory/${PLURAL[step.category]}`,
      this.token,
      {
        ...step.body,
        valid_from: new Date(step.at).toISOString(),
        supersedes: link(step.supersedes),
        corrects: link(step.corrects),
        agent_id: "account-agent",
      },
    );
    this.ids.set(step.key, entry.id);
  }
}

/** A new tenant with its webhook secrets set, holding every step's entry, every one embedded. */
export async function play(rt: EvalRuntime, world: BusinessWorld, steps: readonly Step[]): Promise<Played> {
  const client = new ServiceClient(rt.runtime.app);
  const { token, tenant_id } = await client.expect<{ token: string; tenant_id: string }>(
    [201],
    "POST",
    "/admin/tenants",
    rt.admin,
    { name: `business eval ${randomBytes(3).toString("hex")}` },
  );
  Object.assign(rt.env, {
    [`PAYMENTS_WEBHOOK_SECRET_${tenant_id}`]: PAYMENTS_SECRET,
    [`HELPDESK_SIGNING_SECRET_${tenant_id}`]: HELPDESK_SECRET,
    [`MARKETING_CRM_CLIENT_SECRET_${tenant_id}`]: MARKETING_SECRET,
    [`MARKETING_CRM_APP_ID_${tenant_id}`]: String(world.appId),
  });
  const player = new Player(rt, token, tenant_id);
  let beforeCorrections = "";
  for (const step of steps) {
    if (step.kind === "webhook") await player.webhook(step);
    else {
      if (step.phase === 2 && !beforeCorrections) {
        beforeCorrections = new Date().toISOString();
        // The runtime's clock must move past the moment, so the corrections are recorded after it.
        await Bun.sleep(5);
      }
      await player.write(client, step);
    }
  }
  await embedded(client, rt.admin, tenant_id, rt.waitForUpgrades);
  return {
    token,
    tenantId: tenant_id,
    ids: player.ids,
    beforeCorrections: beforeCorrections || new Date().toISOString(),
    webhooks: steps.filter((s) => s.kind === "webhook").length,
    writes: steps.filter((s) => s.kind === "write").length,
    duplicates: player.duplicates,
  };
}
