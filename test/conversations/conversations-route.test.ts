import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant("conversations"));
});
afterAll(() => h.close());

const post = (body: unknown, t = token) => h.json("POST", "/memory/conversations", { token: t, body });
const turnsOf = (session: string, query = "") =>
  h.json("GET", `/memory/conversations/${session}${query}`, { token });
const search = (body: Record<string, unknown>) => h.json("POST", "/memory/search", { token, body });

const T0 = "2026-03-01T09:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

describe("POST /memory/conversations", () => {
  test("keeps each message as a turn of its session, in order, its time as valid time", async () => {
    const { status, body } = await post({
      session_id: "s-order",
      subject: "user-1",
      messages: [
        { speaker: "Maya", content: "Hello!", at: at(0) },
        { role: "assistant", content: "Hi Maya, how can I help?", at: at(1) },
      ],
    });
    expect(status).toBe(201);
    expect(body.turns.map((t: { position: number; status: number }) => [t.position, t.status])).toEqual([
      [0, 201],
      [1, 201],
    ]);
    const [first, second] = body.turns.map((t: { entry: Record<string, unknown> }) => t.entry);
    expect(first).toMatchObject({
      category: "fact",
      content: "Maya: Hello!",
      valid_from: at(0),
      session_id: "s-order",
      subject: "user-1",
      tags: ["turn", "session:s-order"],
    });
    expect(second.content).toBe("assistant: Hi Maya, how can I help?");
    const listed = await turnsOf("s-order", "?subject=user-1");
    expect((await turnsOf("s-order")).body.turns).toEqual([]);
    expect(listed.status).toBe(200);
    expect(listed.body.turns.map((t: { entry: { id: string } }) => t.entry.id)).toEqual([
      first.id,
      second.id,
    ]);
  });

  test("a replayed call writes nothing; a longer one appends; offset appends the new messages alone", async () => {
    const messages = [
      { speaker: "Sam", content: "I live in Paris.", at: at(0) },
      { speaker: "Ana", content: "Nice.", at: at(1) },
    ];
    const first = await post({ session_id: "s-replay", messages });
    expect(first.status).toBe(201);
    const again = await post({ session_id: "s-replay", messages });
    expect(again.status).toBe(200);
    expect(again.body.turns.map((t: { status: number }) => t.status)).toEqual([200, 200]);
    expect(again.body.extracted).toEqual([]);
    const more = [...messages, { speaker: "Sam", content: "I'll send the photos tomorrow.", at: at(2) }];
    const longer = await post({ session_id: "s-replay", messages: more });
    expect(longer.status).toBe(201);
    expect(longer.body.turns.map((t: { status: number }) => t.status)).toEqual([200, 200, 201]);
    expect(longer.body.extracted.map((x: { kind: string }) => x.kind)).toEqual(["commitment"]);
    const appended = await post({
      session_id: "s-replay",
      offset: 3,
      messages: [{ speaker: "Ana", content: "Thanks!", at: at(3) }],
    });
    expect(appended.body.turns[0]).toMatchObject({ position: 3, status: 201 });
    const listed = await turnsOf("s-replay");
    expect(listed.body.turns.map((t: { position: number }) => t.position)).toEqual([0, 1, 2, 3]);
  });

  test("a session id too long for a tag is tagged by its digest, and found the same", async () => {
    const long = `s-${"x".repeat(120)}`;
    const { body } = await post({ session_id: long, messages: [{ speaker: "Al", content: "hello" }] });
    expect(body.turns[0].entry.tags[1]).toMatch(/^session:#[0-9a-f]{16}$/);
    expect((await turnsOf(long)).body.turns.map((t: { entry: { id: string } }) => t.entry.id)).toEqual([
      body.turns[0].entry.id,
    ]);
  });

  test("a call without times, sent again later, is the same messages: nothing new", async () => {
    const messages = [
      { speaker: "Ola", content: "I prefer trains." },
      { speaker: "Ola", content: "ok" },
      { speaker: "Ola", content: "ok" },
    ];
    const first = await post({ session_id: "s-untimed", messages });
    expect(first.body.turns.map((t: { status: number }) => t.status)).toEqual([201, 201, 201]);
    // The same words twice are two turns; their times keep their order.
    const [, a, b] = first.body.turns.map((t: { entry: { valid_from: string } }) =>
      Date.parse(t.entry.valid_from),
    );
    expect(b).toBeGreaterThan(a);
    const again = await post({ session_id: "s-untimed", messages });
    expect(again.status).toBe(200);
    expect(again.body.turns.map((t: { status: number }) => t.status)).toEqual([200, 200, 200]);
  });

  test("another message at a stored position is a 409 naming it, nothing written", async () => {
    await post({ session_id: "s-conflict", messages: [{ speaker: "A", content: "one", at: at(0) }] });
    const clash = await post({
      session_id: "s-conflict",
      messages: [
        { speaker: "A", content: "not one", at: at(0) },
        { speaker: "A", content: "two", at: at(1) },
      ],
    });
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toContain("messages/0");
    expect((await turnsOf("s-conflict")).body.turns).toHaveLength(1);
  });

  test("extracted entries name their turns, subject and session, and invent no text", async () => {
    const { body } = await post({
      session_id: "s-extract",
      subject: "user-2",
      messages: [
        { speaker: "Maya", content: "We decided to move billing to Postgres.", at: at(0) },
        { speaker: "Maya", content: "Ada works at Acme Corp.", at: at(1) },
        {
          speaker: "Maya",
          content: "To release, first tag the commit, then build, and finally publish.",
          at: at(2),
        },
      ],
    });
    const byKind = Object.fromEntries(
      body.extracted.map((x: { kind: string; entry: Record<string, unknown> }) => [x.kind, x]),
    );
    expect(Object.keys(byKind).sort()).toEqual(["decision", "relationship", "workflow"]);
    const turnId = (i: number) => body.turns[i].entry.id;
    expect(byKind.decision.entry).toMatchObject({
      category: "decision",
      content: "Maya: We decided to move billing to Postgres.",
      subject: "user-2",
      session_id: "s-extract",
      data: { extracted: { kind: "decision", by: "rules-v1", turn_ids: [turnId(0)] } },
    });
    expect(byKind.relationship.entry).toMatchObject({
      subject: "Ada",
      predicate: "works at",
      object: "Acme Corp",
      scope_subject: "user-2",
    });
    expect(byKind.workflow.entry.steps).toEqual(["tag the commit", "build", "publish"]);
    expect(byKind.workflow.positions).toEqual([2]);
  });

  test("extract: false keeps the turns alone; dry_run answers and writes nothing", async () => {
    const messages = [{ speaker: "Lee", content: "I moved to Oslo.", at: at(0) }];
    const plain = await post({ session_id: "s-plain", messages, extract: false });
    expect(plain.body).toMatchObject({ extractor: null, extracted: [] });
    const dry = await post({ session_id: "s-dry", messages, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.turns[0].status).toBe(201);
    expect(dry.body.extracted.map((x: { kind: string }) => x.kind)).toEqual(["personal"]);
    expect((await turnsOf("s-dry")).body.turns).toEqual([]);
    const found = await search({ query: "Oslo", tags: ["session:s-dry"] });
    expect(found.body.results).toEqual([]);
  });

  test("a later statement about the same key supersedes the earlier on valid time", async () => {
    const own = (await h.createTenant("moves")).token;
    const post = (body: unknown) => h.json("POST", "/memory/conversations", { token: own, body });
    const search = (body: Record<string, unknown>) => h.json("POST", "/memory/search", { token: own, body });
    await post({
      session_id: "s-move-1",
      subject: "user-3",
      messages: [{ speaker: "Maya", content: "I live in Paris.", at: "2026-01-10T10:00:00Z" }],
    });
    const later = await post({
      session_id: "s-move-2",
      subject: "user-3",
      messages: [{ speaker: "Maya", content: "I moved to Berlin last week.", at: "2026-04-02T10:00:00Z" }],
    });
    const berlin = later.body.extracted[0].entry;
    expect(berlin.supersedes).toBeDefined();
    const now = await search({ query: "where does Maya live", tags: ["extracted"] });
    expect(now.body.results[0].entry.content).toBe("Maya: I moved to Berlin last week.");
    expect(now.body.results.some((r: { entry: { id: string } }) => r.entry.id === berlin.supersedes)).toBe(
      false,
    );
    const then = await search({
      query: "where does Maya live",
      tags: ["extracted"],
      valid_at: "2026-02-01T00:00:00Z",
    });
    expect(then.body.results[0].entry.content).toBe("Maya: I live in Paris.");
    // Another subject's statement about "Maya" is another key: it supersedes nothing of user-3's.
    const other = await post({
      session_id: "s-move-3",
      subject: "user-4",
      messages: [{ speaker: "Maya", content: "I moved to Rome.", at: "2026-05-01T10:00:00Z" }],
    });
    expect(other.body.extracted[0].entry.supersedes).toBeUndefined();
  });
});

describe("bad input: a clear 4xx naming the field, nothing written", () => {
  const refused = async (body: unknown, status: number, field: string) => {
    const answer = await post(body);
    expect({ status: answer.status, names: JSON.stringify(answer.body).includes(field) }).toEqual({
      status,
      names: true,
    });
    return answer;
  };

  test("empty transcript, over-long message, time going back, bad session id, unknown field", async () => {
    await refused({ session_id: "s-bad", messages: [] }, 422, "/messages");
    await refused(
      { session_id: "s-bad", messages: [{ speaker: "A", content: "x".repeat(32_001) }] },
      422,
      "/messages/0/content",
    );
    await refused(
      {
        session_id: "s-bad",
        messages: [
          { speaker: "A", content: "later", at: at(5) },
          { speaker: "A", content: "earlier", at: at(1) },
        ],
      },
      422,
      "/messages/1/at",
    );
    await refused(
      { session_id: "not an id!", messages: [{ speaker: "A", content: "x" }] },
      422,
      "/session_id",
    );
    await refused(
      { session_id: "s-bad", messages: [{ speaker: "A", content: "x", mood: "happy" }] },
      422,
      "/messages/0/mood",
    );
    await refused(
      { session_id: "s-bad", messages: [{ speaker: "A", content: "x" }], colour: 1 },
      422,
      "/colour",
    );
    await refused(
      { session_id: "s-bad", messages: [{ content: "who said it?" }] },
      422,
      "/messages/0/speaker",
    );
    await refused(
      { session_id: "s-bad", offset: 5, messages: [{ speaker: "A", content: "x" }] },
      422,
      "/offset",
    );
    expect((await turnsOf("s-bad")).body.turns).toEqual([]);
  });

  test("a new message before the session's last turn is refused whole", async () => {
    await post({ session_id: "s-back", messages: [{ speaker: "A", content: "one", at: at(10) }] });
    await refused(
      {
        session_id: "s-back",
        messages: [
          { speaker: "A", content: "one", at: at(10) },
          { speaker: "A", content: "I moved to Lima.", at: at(11) },
          { speaker: "A", content: "oops", at: at(9) },
        ],
      },
      422,
      "/messages/2/at",
    );
    expect((await turnsOf("s-back")).body.turns).toHaveLength(1);
  });

  test("a role writing facts only may keep turns, not a decision extracted from them (403, nothing written)", async () => {
    const { tenant_id } = (await h.json("GET", "/tenants/me", { token })).body;
    await h.json("POST", `/admin/roles/${tenant_id}`, {
      token: h.adminToken,
      body: { name: "fact-writer", permissions: ["memory:read", "memory:write:facts"] },
    });
    const writer = await h.mint(tenant_id, ["fact-writer"], "fact-writer");
    const messages = [{ speaker: "Io", content: "We decided to sell the van.", at: at(0) }];
    const refused = await post({ session_id: "s-perm", messages }, writer);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("memory:write:decisions");
    expect((await turnsOf("s-perm")).body.turns).toEqual([]);
    const plain = await post({ session_id: "s-perm", messages, extract: false }, writer);
    expect(plain.status).toBe(201);
  });

  test("a token that may not write facts is refused (403, recorded)", async () => {
    const reader = await h.mint((await h.json("GET", "/tenants/me", { token })).body.tenant_id, []);
    const answer = await post({ session_id: "s-ro", messages: [{ speaker: "A", content: "x" }] }, reader);
    expect(answer.status).toBe(403);
  });
});

describe("scopes and provenance", () => {
  test("a subject-restricted token writes and reads its own subject's sessions only", async () => {
    const { tenant_id } = (await h.json("GET", "/tenants/me", { token })).body;
    const minted = await h.json("POST", `/admin/jwt/${tenant_id}`, {
      token: h.adminToken,
      body: { roles: ["tenant_admin"], sub: "agent-u9", subject: "user-9" },
    });
    expect(minted.status).toBe(201);
    const restricted = minted.body.token;
    const messages = [{ speaker: "Zoe", content: "I moved to Quito.", at: at(0) }];
    const own = await post({ session_id: "s-scoped", messages }, restricted);
    expect(own.status).toBe(201);
    expect(own.body.turns[0].entry.subject).toBe("user-9");
    expect(own.body.extracted[0].entry.subject).toBe("user-9");
    const other = await post({ session_id: "s-scoped", subject: "user-10", messages }, restricted);
    expect(other.status).toBe(403);
    expect(other.body.detail).toContain("subject");
    // The same session id under another subject is another session.
    const unscoped = await post({ session_id: "s-scoped", messages: [{ speaker: "X", content: "other" }] });
    expect(unscoped.body.turns[0]).toMatchObject({ position: 0, status: 201 });
    const mine = await h.json("GET", "/memory/conversations/s-scoped", { token: restricted });
    expect(mine.body.turns.map((t: { entry: { content: string } }) => t.entry.content)).toEqual([
      "Zoe: I moved to Quito.",
    ]);
    const theirs = await h.json("GET", "/memory/conversations/s-scoped?subject=user-10", {
      token: restricted,
    });
    expect(theirs.body.turns).toEqual([]);
    const admin = await h.json("GET", "/memory/conversations/s-scoped?subject=user-9", { token });
    expect(admin.body.turns).toHaveLength(1);
  });

  test("an extracted entry's origin names the extractor and its turns; its trust is extracted", async () => {
    const { body } = await post({
      session_id: "s-origin",
      messages: [{ speaker: "Kai", content: "Let's go with the red bike.", at: at(0) }],
    });
    const turn = body.turns[0].entry;
    expect(turn.origin.kind).toBe("operator");
    const decision = body.extracted[0].entry;
    expect(decision.origin).toEqual({ kind: "extracted", by: "rules-v1", from: [turn.id] });
    expect(decision.trust).toBe("extracted");
    expect(decision.chosen).toBe("the red bike");
  });
});

describe("concurrency and reads", () => {
  test("the same transcript sent at once from many clients is written once", async () => {
    const messages = [
      { speaker: "Ava", content: "I work at Northwind.", at: at(0) },
      { speaker: "Ava", content: "We decided to hire a designer.", at: at(1) },
      { speaker: "Ava", content: "Thanks.", at: at(2) },
    ];
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post({ session_id: "s-race", messages: messages.slice(0, 1 + (i % 3)) }),
      ),
    );
    expect(answers.every((a) => a.status === 200 || a.status === 201)).toBe(true);
    const listed = await turnsOf("s-race");
    expect(listed.body.turns.map((t: { position: number }) => t.position)).toEqual([0, 1, 2]);
    const written = answers.flatMap((a) =>
      a.body.extracted.filter((x: { status: number }) => x.status === 201),
    );
    expect(written.map((x: { kind: string }) => x.kind).sort()).toEqual(["decision", "relationship"]);
  });

  test("GET pages a session in order; a session id that is not an id is a 422", async () => {
    const messages = Array.from({ length: 5 }, (_, i) => ({
      speaker: "Bo",
      content: `line ${i}`,
      at: at(i),
    }));
    await post({ session_id: "s-pages", messages, extract: false });
    const first = await turnsOf("s-pages", "?limit=2");
    expect(first.body.turns.map((t: { position: number }) => t.position)).toEqual([0, 1]);
    const second = await turnsOf("s-pages", `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.turns.map((t: { position: number }) => t.position)).toEqual([2, 3]);
    const last = await turnsOf("s-pages", `?limit=2&cursor=${second.body.next_cursor}`);
    expect(last.body).toMatchObject({ next_cursor: null });
    expect(last.body.turns.map((t: { position: number }) => t.position)).toEqual([4]);
    const bad = await turnsOf("not%20an%20id");
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("session_id");
  });
});

describe("size and time", () => {
  test("a transcript over the single-write limit is taken whole; one over the batch limit is a 413", async () => {
    const long = "words and more words ".repeat(1_500);
    const messages = Array.from({ length: 40 }, (_, i) => ({
      speaker: "Cy",
      content: `${i} ${long}`,
      at: at(i),
    }));
    const big = await post({ session_id: "s-big", messages, extract: false });
    expect(big.status).toBe(201);
    expect(big.body.turns).toHaveLength(40);
    const huge = "x".repeat(17 * 1024 * 1024);
    const refused = await post({ session_id: "s-huge", messages: [{ speaker: "Cy", content: huge }] });
    expect(refused.status).toBe(413);
    expect((await turnsOf("s-huge")).body.turns).toEqual([]);
  });

  test("as_of a time before the later statement sees the earlier one as it was", async () => {
    // Its own runtime on a manual clock: the two calls are recorded a second apart.
    const clock = new ManualClock();
    const hm = await startHarness({ clock });
    try {
      const own = (await hm.createTenant("as-of")).token;
      const send = (body: unknown) => hm.json("POST", "/memory/conversations", { token: own, body });
      const cork = [{ speaker: "Uma", content: "I live in Cork.", at: "2026-01-01T10:00:00Z" }];
      await send({ session_id: "a1", messages: cork });
      const between = new Date(clock.now() + 500).toISOString();
      clock.advance(1000);
      const galway = [{ speaker: "Uma", content: "I moved to Galway.", at: "2026-02-01T10:00:00Z" }];
      await send({ session_id: "a2", messages: galway });
      const contents = async (extra: Record<string, unknown>) => {
        const body = { query: "Uma", tags: ["extracted"], ...extra };
        const { body: found } = await hm.json("POST", "/memory/search", { token: own, body });
        return found.results.map((r: { entry: { content: string } }) => r.entry.content);
      };
      expect(await contents({})).toEqual(["Uma: I moved to Galway."]);
      expect(await contents({ as_of: between })).toEqual(["Uma: I live in Cork."]);
    } finally {
      await hm.close();
    }
  });
});
