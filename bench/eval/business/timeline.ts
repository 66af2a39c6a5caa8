/**
 * The world as what a tenant receives: each platform's webhook events (as the platform shapes
 * them: a marketing CRM's event arrays, Zendesk's event-subscribed bodies, Stripe's event
 * envelopes) and the agents' own writes, in delivery order. Every step names the entry it makes
 * (`key`) and what that entry is about (`meta`), so questions can name their gold entries.
 */
import { Rng } from "../dataset/prng.ts";
import { BUSINESS_SEED, type BusinessWorld, type Company, DAY } from "./world.ts";

export type WebhookSource = "marketing_crm" | "helpdesk" | "payments";

export interface EntryMeta {
  company: number;
  /** The source system, or `agent` for the agents' own writes. */
  source: WebhookSource | "agent";
  /** The object the entry belongs to (a deal, a ticket, a customer's subscription). */
  object?: string;
  role: string;
}

interface StepBase {
  key: string;
  meta: EntryMeta;
  /** Event time, epoch ms. */
  at: number;
  /** Delivery order, epoch ms: the event time, later for a reordered delivery. */
  order: number;
}

export interface WebhookStep extends StepBase {
  kind: "webhook";
  source: WebhookSource;
  event: Record<string, unknown>;
}

export interface WriteStep extends StepBase {
  kind: "write";
  category: "fact" | "decision";
  body: Record<string, unknown>;
  supersedes?: string;
  corrects?: string;
  /** 2: written after the as_of moment the past-state questions ask at. */
  phase: 1 | 2;
}

export type Step = WebhookStep | WriteStep;

const iso = (ms: number) => new Date(ms).toISOString();

class Events {
  private readonly rng = new Rng(BUSINESS_SEED + 1);
  private eventId = 1000;
  readonly steps: Step[] = [];

  constructor(private readonly world: BusinessWorld) {}

  private uuid(): string {
    const hex = () => Math.floor(this.rng.next() * 16).toString(16);
    return Array.from({ length: 32 }, hex)
      .join("")
      .replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
  }

  /** A marketing CRM event; `retry` delivers the very same event once more, a day after `order`. */
  crm(
    key: string,
    meta: EntryMeta,
    at: number,
    type: string,
    objectId: number,
    extra: object,
    order = at,
    retry = false,
  ) {
    const event = {
      eventId: ++this.eventId,
      subscriptionId: 1_200_000,
      portalId: this.world.portalId,
      appId: this.world.appId,
      occurredAt: at,
      subscriptionType: type,
      attemptNumber: 0,
      objectId,
      changeSource: "CRM_UI",
      ...extra,
    };
    this.steps.push({ kind: "webhook", source: "marketing_crm", key, meta, at, order, event });
    if (retry)
      this.steps.push({
        kind: "webhook",
        source: "marketing_crm",
        key: `${key}:retry`,
        meta: { ...meta, role: "retry" },
        at,
        order: order + DAY,
        event: { ...event, attemptNumber: 1 },
      });
  }

  helpdesk(key: string, meta: EntryMeta, at: number, type: string, detail: object, change: object = {}) {
    const event = {
      type: `zen:event-type:${type}`,
      account_id: 22_129_848,
      id: this.uuid(),
      time: iso(at),
      zendesk_event_version: "2022-11-06",
      subject: `zen:ticket:${(detail as { id: number }).id}`,
      detail,
      event: change,
    };
    this.steps.push({ kind: "webhook", source: "helpdesk", key, meta, at, order: at, event });
  }

  payments(key: string, meta: EntryMeta, at: number, type: string, object: object) {
    const event = {
      id: `evt_${this.uuid().replaceAll("-", "").slice(0, 24)}`,
      object: "event",
      api_version: "2025-10-29",
      created: Math.floor(at / 1000),
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object },
    };
    this.steps.push({ kind: "webhook", source: "payments", key, meta, at, order: at, event });
  }

  write(step: Omit<WriteStep, "kind" | "order">) {
    this.steps.push({ kind: "write", order: step.at, ...step });
  }
}

function crmSteps(e: Events, c: Company) {
  const meta = (role: string, object?: string): EntryMeta => ({
    company: c.index,
    source: "marketing_crm",
    role,
    object,
  });
  e.crm(`company:${c.index}`, meta("company"), c.createdAt, "company.creation", c.objectId, {
    properties: { name: c.name, domain: c.domain, industry: c.industry },
  });
  const person = c.contact;
  e.crm(`contact:${c.index}`, meta("contact"), c.createdAt + 3_600_000, "contact.creation", person.objectId, {
    properties: { firstname: person.first, lastname: person.last, email: person.email, company: c.name },
  });
  for (const deal of c.deals)
    deal.stages.forEach(({ stage, at }, k) => {
      const late = deal.late === k;
      const order = late ? deal.stages[k + 1]!.at + 3_600_000 : at;
      const body = {
        propertyName: "dealstage",
        propertyValue: stage,
        properties: { dealname: deal.name, amount: String(deal.amount) },
      };
      // The late delivery is retried once more by the platform: the same event, deduplicated.
      e.crm(
        `deal:${deal.id}:${k}`,
        meta("stage", `deal:${deal.id}`),
        at,
        "deal.propertyChange",
        deal.id,
        body,
        order,
        late,
      );
    });
}

function ticketSteps(e: Events, c: Company) {
  for (const t of c.tickets) {
    const object = `ticket:${t.id}`;
    const meta = (role: string): EntryMeta => ({ company: c.index, source: "helpdesk", role, object });
    const detail = (status: string, priority: string) => ({
      id: String(t.id),
      subject: t.subject,
      description: t.description,
      status,
      priority,
      type: "problem",
      created_at: iso(t.openedAt),
      requester_id: String(c.contact.objectId),
      organization_id: String(c.objectId),
      tags: ["customer"],
      via: { channel: "email" },
    });
    e.helpdesk(`${object}:opened`, meta("opened"), t.openedAt, "ticket.created", detail("open", "normal"));
    if (t.escalatedAt)
      e.helpdesk(
        `${object}:escalated`,
        meta("escalated"),
        t.escalatedAt,
        "ticket.priority_changed",
        detail("open", "urgent"),
        {
          previous: "normal",
          current: "urgent",
        },
      );
    if (t.solvedAt)
      e.helpdesk(
        `${object}:solved`,
        meta("solved"),
        t.solvedAt,
        "ticket.status_changed",
        detail("solved", t.escalatedAt ? "urgent" : "normal"),
        {
          previous: "open",
          current: "solved",
        },
      );
  }
}

function billingSteps(e: Events, c: Company) {
  const b = c.billing;
  if (!b) return;
  const object = `customer:${b.customer}`;
  const meta = (role: string): EntryMeta => ({ company: c.index, source: "payments", role, object });
  for (const [k, s] of b.subscriptions.entries())
    e.payments(`sub:${b.customer}:${k}`, meta("subscription"), s.at, "customer.subscription.updated", {
      id: `sub_${b.customer.slice(4)}`,
      object: "subscription",
      customer: b.customer,
      status: s.status,
      description: `${c.name} — ${s.plan}`,
      plan: { id: `price_${s.plan.toLowerCase().replace(" ", "_")}`, nickname: s.plan },
    });
  for (const p of b.payments)
    e.payments(`pay:${p.id}`, meta("payment"), p.at, "payment_intent.succeeded", {
      id: p.id,
      object: "payment_intent",
      amount: p.amount,
      amount_received: p.amount,
      currency: "eur",
      customer: b.customer,
      receipt_email: c.contact.email,
      description: `${b.plan} subscription, ${c.name}`,
      status: "succeeded",
    });
  for (const f of b.failures)
    e.payments(`fail:${f.id}`, meta("invoice_failed"), f.at, "invoice.payment_failed", {
      id: f.id,
      object: "invoice",
      number: f.number,
      amount_due: f.amount,
      currency: "eur",
      customer: b.customer,
      customer_name: c.name,
      customer_email: c.contact.email,
      attempt_count: 2,
    });
}

function agentSteps(e: Events, c: Company) {
  const meta = (role: string, object?: string): EntryMeta => ({
    company: c.index,
    source: "agent",
    role,
    object,
  });
  const { note, discounts, headquarters } = c.agent;
  const person = `${c.contact.first} ${c.contact.last}`;
  e.write({
    key: `note:${c.index}`,
    meta: meta("note"),
    at: note.at,
    category: "fact",
    phase: 1,
    body: {
      content: `Account note: ${person} runs the ${c.name} account day to day and prefers ${note.preference}.`,
    },
  });
  for (const [k, d] of discounts.entries())
    e.write({
      key: `discount:${c.index}:${k}`,
      meta: meta("discount", `discount:${c.index}`),
      at: d.at,
      category: "decision",
      phase: 1,
      supersedes: k > 0 ? `discount:${c.index}:${k - 1}` : undefined,
      body: {
        content: `We offer ${c.name} a ${d.percent}% discount on the renewal.`,
        chosen: `${d.percent}% discount`,
      },
    });
  if (!headquarters) return;
  const hq = (city: string) => ({ content: `${c.name} has its headquarters in ${city}.` });
  e.write({
    key: `hq:${c.index}:wrong`,
    meta: meta("hq", `hq:${c.index}`),
    at: headquarters.at,
    category: "fact",
    phase: 1,
    body: hq(headquarters.wrong),
  });
  e.write({
    key: `hq:${c.index}:right`,
    meta: meta("hq", `hq:${c.index}`),
    at: headquarters.at,
    category: "fact",
    phase: 2,
    corrects: `hq:${c.index}:wrong`,
    body: hq(headquarters.right),
  });
}

/** Every step, in delivery order (phase 2, the corrections, last). */
export function timelineOf(world: BusinessWorld): Step[] {
  const e = new Events(world);
  for (const c of world.companies) {
    crmSteps(e, c);
    ticketSteps(e, c);
    billingSteps(e, c);
    agentSteps(e, c);
  }
  const phase = (s: Step) => (s.kind === "write" ? s.phase : 1);
  return e.steps.sort((a, b) => phase(a) - phase(b) || a.order - b.order || a.key.localeCompare(b.key));
}
