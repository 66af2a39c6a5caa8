/** Shared helpers of the source tests: requests, contexts and draft validation. */

import { expect } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { ENTRY_INPUT } from "../../src/models/entry.ts";
import type {
  IngestDraft,
  MapResult,
  SourceContext,
  SourceModule,
  VerifyResult,
  WebhookRequest,
} from "../../src/sources/types.ts";
import { unparseableBodies } from "../fakes/hostile-bodies.ts";

export const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
export const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

export function request(
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  url = `https://memory.example.com/webhooks/x/${TENANT}`,
  method = "POST",
): WebhookRequest {
  const rawBody = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return { method, url, headers: new Headers(headers), rawBody };
}

export function context(secrets: Record<string, string>, extra: Partial<SourceContext> = {}): SourceContext {
  return { tenantId: TENANT, secrets, now: () => NOW, ...extra };
}

/** Asserts the map succeeded and every draft passes its category's schema; returns the drafts. */
export function validDrafts(result: MapResult): IngestDraft[] {
  if (!result.ok) throw new Error(`map failed: ${result.reason} ${result.detail ?? ""}`);
  for (const { draft } of result.drafts) {
    // The category picks the schema; the body the schema checks is the rest of the draft.
    const { category, ...body } = draft;
    const errors = [...Value.Errors(ENTRY_INPUT[category], body)].map((e) => `${e.path} ${e.message}`);
    expect(errors).toEqual([]);
    expect(Value.Check(ENTRY_INPUT[category], body)).toBe(true);
  }
  return result.drafts;
}

/** The single draft of a successful map. */
export function onlyDraft(result: MapResult): IngestDraft {
  const drafts = validDrafts(result);
  expect(drafts).toHaveLength(1);
  return drafts[0]!;
}

/** Hostile bodies (the unparseable ones, plus parseable ones of the wrong shape) every source must turn into a BadRequest or a clean map failure. */
export function hostileBodies(): Record<string, Uint8Array> {
  const enc = (s: string) => new TextEncoder().encode(s);
  return {
    ...unparseableBodies(),
    wrongTypes: enc(
      '[{"eventId": {"a": 1}, "subscriptionType": 7, "objectId": [], "occurredAt": "x", "appId": null}]',
    ),
    objectWrongTypes: enc('{"message": 5, "event": [], "alert": "x", "run": 3}'),
    deeplyNestedXml: enc(`${"<a>".repeat(50_000)}${"</a>".repeat(50_000)}`),
    twoMiBXml: enc(`<a>${"<b>x</b>".repeat((2 * 1024 * 1024) / 8)}</a>`),
  };
}

/** A synchronous source's verification result (marketing_crm, data and crm verify without I/O). */
export function verifySync(source: SourceModule, req: WebhookRequest, ctx: SourceContext): VerifyResult {
  const result = source.verify(req, ctx);
  if (result instanceof Promise) throw new Error(`${source.id} verifies asynchronously`);
  return result;
}
