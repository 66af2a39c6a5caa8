import { describe, expect, test } from "bun:test";
import { buildEntry, normaliseDraft } from "../../../../actors/tenant/memory/entry-builder.ts";
import { ValidationFailed } from "../../../../src/errors/domain-errors.ts";
import type { EntryDraft } from "../../../../src/models/entry.ts";

const NOW = Date.parse("2026-11-21T10:15:30.123Z");
const provenance = { origin: { kind: "agent" as const, sub: "agent-7" }, trust: "agent" as const };
const ctx = { tenantId: "01JDB2X6J3KQ5W8Z3M4N7P9R2S", createdBy: "agent-7", now: NOW, provenance };

function build(draft: EntryDraft) {
  return buildEntry(normaliseDraft(draft, NOW), "0123abcd", ctx);
}

function failure(fn: () => unknown): ValidationFailed {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed);
    return error as ValidationFailed;
  }
  throw new Error("expected a ValidationFailed");
}

describe("normaliseDraft", () => {
  test("valid_from defaults to now; valid_to to null", () => {
    const n = normaliseDraft({ category: "fact", content: "x" }, NOW);
    expect(n.validFrom).toBe(NOW);
    expect(n.validTo).toBeNull();
  });

  test("any RFC 3339 offset is normalised to epoch ms", () => {
    const n = normaliseDraft(
      {
        category: "fact",
        content: "x",
        valid_from: "2026-01-01T02:00:00+02:00",
        valid_to: "2026-01-01T00:00:01Z",
      },
      NOW,
    );
    expect(n.validFrom).toBe(Date.parse("2026-01-01T00:00:00Z"));
    expect(n.validTo).toBe(Date.parse("2026-01-01T00:00:01Z"));
  });

  const bad: Array<[string, Partial<EntryDraft>, string]> = [
    ["impossible month/day", { valid_from: "2026-13-40T00:00:00Z" }, "/valid_from"],
    ["not RFC 3339", { valid_from: "yesterday" }, "/valid_from"],
    ["date only", { valid_from: "2026-01-01" }, "/valid_from"],
    ["valid_to not RFC 3339", { valid_to: "2026-01-01 noon" }, "/valid_to"],
    [
      "valid_to before valid_from",
      { valid_from: "2026-01-02T00:00:00Z", valid_to: "2026-01-01T00:00:00Z" },
      "/valid_to",
    ],
    [
      "valid_to equal to valid_from",
      { valid_from: "2026-01-02T00:00:00Z", valid_to: "2026-01-02T00:00:00.000Z" },
      "/valid_to",
    ],
    ["valid_to before the default valid_from (now)", { valid_to: "2026-01-01T00:00:00Z" }, "/valid_to"],
    ["supersedes with corrects", { supersedes: "aaaaaaaa", corrects: "bbbbbbbb" }, "/corrects"],
    ["data over 16 KiB", { data: { blob: "x".repeat(16 * 1024) } }, "/data"],
  ];
  for (const [name, over, path] of bad) {
    test(`${name} → ValidationFailed at ${path}`, () => {
      const error = failure(() =>
        normaliseDraft({ category: "fact", content: "x", ...over } as EntryDraft, NOW),
      );
      expect(error.status).toBe(422);
      expect(error.errors?.[0]?.path).toBe(path);
    });
  }

  test("data of exactly 16 KiB is accepted", () => {
    const overhead = JSON.stringify({ blob: "" }).length;
    const data = { blob: "x".repeat(16 * 1024 - overhead) };
    expect(Buffer.byteLength(JSON.stringify(data))).toBe(16 * 1024);
    expect(() => normaliseDraft({ category: "fact", content: "x", data }, NOW)).not.toThrow();
  });

  test("data size is measured in UTF-8 bytes, not characters", () => {
    const data = { blob: "é".repeat(9000) }; // 9000 characters, 18000 bytes
    expect(() => normaliseDraft({ category: "fact", content: "x", data }, NOW)).toThrow(ValidationFailed);
  });
});

describe("buildEntry", () => {
  test("server fields and defaults of a fact", () => {
    const e = build({ category: "fact", content: "hello", tags: ["a"] });
    expect(e).toEqual({
      id: "0123abcd",
      tenant_id: ctx.tenantId,
      category: "fact",
      content: "hello",
      tags: ["a"],
      valid_from: "2026-11-21T10:15:30.123Z",
      valid_to: null,
      agent_id: "agent-7",
      recorded_at: "2026-11-21T10:15:30.123Z",
      expired_at: null,
      invalidated_at: null,
      created_by: "agent-7",
      ...provenance,
    });
  });

  test("category defaults", () => {
    expect(build({ category: "decision", content: "d" })).toMatchObject({ status: "open" });
    expect(build({ category: "exception", content: "e" })).toMatchObject({
      severity: "medium",
      status: "open",
    });
    expect(
      build({ category: "outcome", content: "o", decision_id: "aaaaaaaa", result: "success" }),
    ).toMatchObject({
      currency: "USD",
      decision_id: "aaaaaaaa",
      result: "success",
    });
  });

  test("given values win over defaults", () => {
    expect(
      build({ category: "exception", content: "e", severity: "critical", status: "resolved" }),
    ).toMatchObject({
      severity: "critical",
      status: "resolved",
    });
    expect(
      build({
        category: "outcome",
        content: "o",
        decision_id: "aaaaaaaa",
        result: "failure",
        currency: "EUR",
      }).currency,
    ).toBe("EUR");
  });

  test("agent_id defaults to the creator but can be given; created_by is always the creator", () => {
    const e = build({ category: "fact", content: "x", agent_id: "bot-2" });
    expect(e.agent_id).toBe("bot-2");
    expect(e.created_by).toBe("agent-7");
  });

  test("never stores embedding or the body tenant_id, and times are UTC milliseconds", () => {
    const e = build({
      category: "fact",
      content: "x",
      embedding: [1, 2, 3],
      tenant_id: "01JDB2X6J3KQ5W8Z3M4N7P9R2T",
      valid_from: "2026-01-01T05:30:00+05:30",
      valid_to: "2026-01-02T00:00:00.5Z",
    } as EntryDraft);
    expect(e).not.toHaveProperty("embedding");
    expect(e.tenant_id).toBe(ctx.tenantId);
    expect(e.valid_from).toBe("2026-01-01T00:00:00.000Z");
    expect(e.valid_to).toBe("2026-01-02T00:00:00.500Z");
  });

  test("a body cannot set server-managed fields through the draft", () => {
    const e = build({
      category: "fact",
      content: "x",
      recorded_at: "2000-01-01T00:00:00Z",
      id: "ffffffff",
    } as unknown as EntryDraft);
    expect(e.id).toBe("0123abcd");
    expect(e.recorded_at).toBe("2026-11-21T10:15:30.123Z");
  });
});
