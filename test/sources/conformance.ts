/**
 * The acceptance points every webhook source must meet (SOURCES.md, "The eighteen other sources"),
 * as one suite: a source's test file gives its fake sender and real-shaped sample events, and
 * `describeSource` runs them through the real route (`app.handle`) on a harness with a manual clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Category } from "../../src/models/category.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { PlatformSender, Signed } from "../fakes/senders/sender.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { PLURAL, readEntry, setSecrets } from "../helpers/webhooks.ts";
import { describeLifecycles, type LifecycleSample } from "./lifecycle-conformance.ts";

export interface MappedSample {
  /** What the sample is, as the test names it ("payment succeeded"). */
  name: string;
  /** The body as the platform sends it (each call may return a fresh event id). */
  body(): string;
  /** `source.event_type` the entry carries. */
  eventType: string;
  category: Category;
  /** Expected inside the entry's content. */
  content: string | RegExp;
  /** Typed fields and others expected on the entry (toMatchObject). */
  fields?: Record<string, unknown>;
}

export interface SourceSpec {
  sender: PlatformSender;
  mapped: MappedSample[];
  /** A real-shaped event of a type the table does not cover. */
  unmapped(): string;
  /** Extra tests for this source (handshakes, outcome linking, official libraries). */
  more?(ctx: SpecContext): void;
  /** Its closing events, each with the entries it closes (lifecycle-conformance.ts). */
  lifecycles?: readonly LifecycleSample[];
}

export interface SpecContext {
  harness(): Harness;
  clock: ManualClock;
  /** A fresh tenant with the sender's secrets set. */
  tenant(): Promise<{ tenant_id: string; token: string }>;
  /** Posts a signed delivery to the tenant's webhook URL. */
  post(tenantId: string, signed: Signed): Promise<Response>;
  /** Signs `body` with the sender now and posts it; returns the parsed 200 summary. */
  deliver(tenantId: string, body: string): Promise<Summary>;
  url(tenantId: string): string;
}

export interface Summary {
  accepted: number;
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
  ignored: number;
}

export function describeSource(spec: SourceSpec): void {
  const { sender } = spec;
  const clock = new ManualClock();
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ clock });
  });
  afterAll(() => h.close());

  const url = (tenantId: string) => `${BASE}/webhooks/${sender.source}/${tenantId}`;
  const tenant = async () => {
    const t = await h.createTenant();
    setSecrets(h, t.tenant_id, sender.secrets);
    return t;
  };
  const post = (tenantId: string, signed: Signed) =>
    h.call("POST", `/webhooks/${sender.source}/${tenantId}${signed.query ?? ""}`, {
      raw: signed.body,
      headers: signed.headers,
    });
  const signNow = (tenantId: string, body: string) =>
    sender.sign(body, { now: clock.now(), url: url(tenantId) });
  const summaryOf = async (res: Response): Promise<Summary> => {
    const text = await res.text();
    expect({ status: res.status, body: text.slice(0, 300) }).toMatchObject({ status: 200 });
    return JSON.parse(text);
  };
  const deliver = async (tenantId: string, body: string) =>
    summaryOf(await post(tenantId, await signNow(tenantId, body)));
  const entryCount = async (tenantId: string): Promise<number> =>
    (await h.json("GET", `/tenants/${tenantId}/healthz`, { token: h.adminToken })).body.vault.entries;

  describe(`${sender.source}: deliveries a platform sends`, () => {
    for (const sample of spec.mapped) {
      test(`${sample.name} → ${sample.category}, with source.system "${sender.source}"`, async () => {
        const t = await tenant();
        const summary = await deliver(t.tenant_id, sample.body());
        expect(summary).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [], ignored: 0 });
        expect(summary.entries).toHaveLength(1);
        const entry = await readEntry(h, t.token, sample.category, summary.entries[0]!);
        expect(entry.source).toMatchObject({ system: sender.source, event_type: sample.eventType });
        expect(typeof entry.source.event_id).toBe("string");
        if (typeof sample.content === "string") expect(entry.content).toContain(sample.content);
        else expect(entry.content).toMatch(sample.content);
        if (sample.fields) expect(entry).toMatchObject(sample.fields);
      });
    }

    test("an event type the mapping does not cover is counted as ignored: nothing written, no dead letter", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, spec.unmapped());
      expect(summary).toEqual({ accepted: 0, entries: [], duplicates: 0, dead_lettered: [], ignored: 1 });
      expect(await entryCount(t.tenant_id)).toBe(0);
      const dead = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenant_id}`, {
        token: h.adminToken,
      });
      expect(dead.body.dead_letters).toEqual([]);
    });

    test("a redelivery of the same event is a duplicate and writes no second entry", async () => {
      const t = await tenant();
      const body = spec.mapped[0]!.body();
      const first = await deliver(t.tenant_id, body);
      expect(first.accepted).toBe(1);
      clock.advance(1000);
      const again = await deliver(t.tenant_id, body);
      expect(again).toEqual({ accepted: 0, entries: [], duplicates: 1, dead_lettered: [], ignored: 0 });
      expect(await entryCount(t.tenant_id)).toBe(first.entries.length);
    });
  });

  describe(`${sender.source}: verification`, () => {
    if (sender.signsBody) {
      test("a body changed after signing → 401", async () => {
        const t = await tenant();
        const body = spec.mapped[0]!.body();
        const signed = await signNow(t.tenant_id, body);
        const tampered = body.replace(/.$/s, (last) => ` ${last}`);
        expect(tampered).not.toBe(body);
        await expectProblem(await post(t.tenant_id, { ...signed, body: tampered }), 401, "unauthorized");
        expect(await entryCount(t.tenant_id)).toBe(0);
      });
    }

    test("a delivery made with another secret → 401", async () => {
      const t = await tenant();
      const signed = await signNow(t.tenant_id, spec.mapped[0]!.body());
      setSecrets(
        h,
        t.tenant_id,
        Object.fromEntries(Object.entries(sender.secrets).map(([k, v]) => [k, `${v}-rotated-away`])),
      );
      await expectProblem(await post(t.tenant_id, signed), 401, "unauthorized");
    });

    test("a delivery without its signature or token → 401", async () => {
      const t = await tenant();
      // The body as given to the sender: where the credential travels in the body (Graph's
      // clientState), the sender is what puts it there.
      const body = spec.mapped[0]!.body();
      const signed = await signNow(t.tenant_id, body);
      await expectProblem(
        await post(t.tenant_id, { body, headers: onlyContentType(signed) }),
        401,
        "unauthorized",
      );
    });

    if (sender.staleMs !== undefined) {
      const staleMs = sender.staleMs;
      test("a delivery signed too long ago (stale timestamp) → 401", async () => {
        const t = await tenant();
        const body = spec.mapped[0]!.body();
        const signed = await sender.sign(body, { now: clock.now() - staleMs, url: url(t.tenant_id) });
        await expectProblem(await post(t.tenant_id, signed), 401, "unauthorized");
      });
    }

    const rotated = sender.signRotated;
    if (rotated) {
      test("several signatures with one valid (a secret being rotated) → 200", async () => {
        const t = await tenant();
        const signed = await rotated.call(sender, spec.mapped[0]!.body(), {
          now: clock.now(),
          url: url(t.tenant_id),
        });
        const summary = await summaryOf(await post(t.tenant_id, signed));
        expect(summary.accepted).toBe(1);
      });
    }

    test("a tenant without the secret → 503 naming the variable, never a value", async () => {
      const t = await h.createTenant();
      const signed = await signNow(t.tenant_id, spec.mapped[0]!.body());
      const problem = await expectProblem(await post(t.tenant_id, signed), 503, "secret_missing");
      for (const base of Object.keys(sender.secrets))
        expect(problem.detail).toContain(`${base}_${t.tenant_id}`);
      for (const value of Object.values(sender.secrets)) expect(problem.detail).not.toContain(value);
    });
  });

  const context: SpecContext = { harness: () => h, clock, tenant, post, deliver, url };
  if (spec.more) describe(`${sender.source}: specifics`, () => spec.more?.(context));
  if (spec.lifecycles) describeLifecycles(context, spec.lifecycles);
}

/** The delivery's headers without any credential: only its content type. */
function onlyContentType(signed: Signed): Record<string, string> {
  const type = Object.entries(signed.headers).find(([k]) => k.toLowerCase() === "content-type");
  return type ? { [type[0]]: type[1] } : {};
}

export { PLURAL };
