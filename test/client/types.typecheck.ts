/**
 * Type-level tests of the client, checked by `tsc` (`bun run typecheck`, in CI) and never run:
 * each `expectTypeOf` states a type the document gives, each `@ts-expect-error` an input or a read
 * the types must refuse (an expected error that does not occur is itself an error, so a loosened
 * type fails the typecheck).
 */
import { expectTypeOf } from "bun:test";
import type {
  DecisionEntry,
  FactEntry,
  FactWritten,
  MemoryClient,
  OutcomeEntry,
  Problem,
  SearchResults,
  TrustProblem,
} from "typed-memory-runtime/client";

export async function writesAreNarrowedPerCategory(client: MemoryClient): Promise<void> {
  const fact = await client.memory.write("fact", { content: "Acme renews in March" });
  // Before checking `error`, `data` may be undefined.
  // @ts-expect-error: data is undefined when the call failed
  fact.data.id;
  if (fact.error) {
    expectTypeOf(fact.error).toEqualTypeOf<Problem>();
    expectTypeOf(fact.data).toEqualTypeOf<undefined>();
    return;
  }
  expectTypeOf(fact.data).toEqualTypeOf<FactWritten>();
  expectTypeOf(fact.data.category).toEqualTypeOf<"fact">();
  expectTypeOf(fact.data.similar).toEqualTypeOf<{ id: string; score: number }[] | undefined>();

  const decision = await client.memory.get("decision", fact.data.id);
  if (decision.data) {
    expectTypeOf(decision.data).toEqualTypeOf<DecisionEntry>();
    expectTypeOf(decision.data.category).toEqualTypeOf<"decision">();
  }
  const outcome = await client.memory.write("outcome", {
    content: "Renewal closed",
    decision_id: fact.data.id,
    result: "success",
  });
  if (outcome.data)
    expectTypeOf(outcome.data.result).toEqualTypeOf<"success" | "failure" | "neutral" | undefined>();

  const page = await client.memory.list("fact", { limit: 10, tag: "acme" });
  if (page.data) expectTypeOf(page.data.items).toEqualTypeOf<FactEntry[]>();
  const batch = await client.memory.writeBatch("outcome", []);
  if (batch.data) expectTypeOf(batch.data.entries).toEqualTypeOf<OutcomeEntry[]>();
  const found = await client.search({ query: "renewal" });
  if (found.data) expectTypeOf(found.data).toEqualTypeOf<SearchResults>();

  // The path-typed methods narrow by path just the same.
  const raw = await client.POST("/memory/facts", { body: { content: "x" } });
  if (raw.data) expectTypeOf(raw.data.category).toEqualTypeOf<"fact">();
  // A write's 403 may be the trust rule's, which names the entry and both levels.
  if (raw.error) expectTypeOf(raw.error).toEqualTypeOf<Problem | TrustProblem>();
}

export async function wrongInputsAreRefused(client: MemoryClient): Promise<void> {
  // @ts-expect-error: content is a string
  await client.memory.write("fact", { content: 42 });
  // @ts-expect-error: an outcome needs decision_id and result
  await client.memory.write("outcome", { content: "closed" });
  // @ts-expect-error: no such category
  await client.memory.write("note", { content: "x" });
  // @ts-expect-error: a field no category takes
  await client.memory.write("fact", { content: "x", colour: "red" });
  // @ts-expect-error: dedupe takes "similar" only
  await client.memory.write("fact", { content: "x" }, { dedupe: "exact" });
  // @ts-expect-error: an unknown list parameter
  await client.memory.list("fact", { newest: true });
  // @ts-expect-error: dead letters are "dead" or "replayed"
  await client.admin.deadLetters.list("01JDB2X6J3KQ5W8Z3M4N7P9R2S", { status: "lost" });
  // @ts-expect-error: a tenant's name is required
  await client.admin.tenants.create({});
  // @ts-expect-error: no such route
  await client.GET("/memory/notes", {});
  // @ts-expect-error: the route's body is checked too
  await client.POST("/memory/decisions", { body: { content: 1 } });
}

export async function scopesAreTyped(client: MemoryClient): Promise<void> {
  // Scope fields on writes and entries, and the filters of the same names (docs/memory.md "Scopes").
  const fact = await client.memory.write("fact", {
    content: "Prefers tea",
    subject: "user-42",
    session_id: "s1",
  });
  if (fact.data) {
    expectTypeOf(fact.data.subject).toEqualTypeOf<string | undefined>();
    expectTypeOf(fact.data.session_id).toEqualTypeOf<string | undefined>();
  }
  const rel = await client.memory.write("relationship", {
    content: "Ada works at Acme",
    subject: "Ada",
    predicate: "works_at",
    object: "Acme",
    scope_subject: "user-42",
  });
  if (rel.data) expectTypeOf(rel.data.scope_subject).toEqualTypeOf<string | undefined>();
  await client.memory.list("fact", { subject: "user-42", session_id: "s1", agent_id: "bot" });
  await client.search({ query: "tea", subject: "user-42", session_id: "s1", agent_id: "bot" });
  // @ts-expect-error: a fact has no scope_subject (only a relationship, whose subject is its triple's)
  await client.memory.write("fact", { content: "x", scope_subject: "user-42" });
}
