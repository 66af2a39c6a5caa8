import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

/**
 * Subject isolation, in the style of the tenant-isolation suite (test/isolation/): two end users'
 * tokens of one tenant, restricted to their subjects, write, read, list, search and stream at the
 * same time; no answer to one ever carries the other's marker, and the live stream replayed from
 * the log's start shows each only its own and the tenant's unscoped entries.
 */
const ROUNDS = 12;

let h: Harness;
let tenant: string;
let owner: string;
const users = [
  { subject: "user-ada", marker: `mark${crypto.randomUUID().slice(0, 8)}`, token: "", ids: [] as string[] },
  { subject: "user-bob", marker: `mark${crypto.randomUUID().slice(0, 8)}`, token: "", ids: [] as string[] },
];
const shared = `shared${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenant, token: owner } = await h.createTenant());
  for (const user of users) {
    const res = await h.json("POST", `/admin/jwt/${tenant}`, {
      token: h.adminToken,
      body: { roles: ["tenant_admin"], sub: `app-${user.subject}`, subject: user.subject },
    });
    user.token = res.body.token;
  }
  const unscoped = await h.json("POST", "/memory/facts", {
    token: owner,
    body: { content: `${shared} the office opens at nine`, tags: [shared] },
  });
  expect(unscoped.status).toBe(201);
});
afterAll(() => h.close());

type User = (typeof users)[number];

async function call(
  user: User,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const res = await h.call(method, path, { token: user.token, body });
  return { status: res.status, text: await res.text() };
}

/** One round of a user: a write (with and without its subject), then a read, a list and searches. */
async function round(user: User, other: User, i: number): Promise<string[]> {
  const body = { content: `${user.marker} ${shared} prefers tea round ${i}`, tags: [shared, user.marker] };
  const written = await call(
    user,
    "POST",
    "/memory/facts",
    i % 2 ? { ...body, subject: user.subject } : body,
  );
  expect(written.status).toBe(201);
  const entry = JSON.parse(written.text);
  expect(entry.subject).toBe(user.subject);
  user.ids.push(entry.id);
  const answers = [
    await call(user, "GET", `/memory/facts/${entry.id}`),
    await call(user, "GET", `/memory/facts?tag=${shared}&limit=500`),
    await call(user, "POST", "/memory/search", { query: `${shared} prefers tea`, limit: 100 }),
    await call(user, "POST", "/memory/search", { query: other.marker, limit: 100 }),
    await call(user, "POST", "/memory/search", { tags: [shared], limit: 100 }),
  ];
  const otherId = other.ids[other.ids.length - 1];
  if (otherId) {
    const peek = await call(user, "GET", `/memory/facts/${otherId}`);
    expect(peek.status).toBe(404);
    answers.push(peek);
  }
  for (const a of answers) expect(a.status).toBeLessThan(500);
  return answers.map((a) => a.text);
}

test("two subjects' tokens under concurrency never see each other's entries", async () => {
  const [ada, bob] = users as [User, User];
  const work = (user: User, other: User) => async () => {
    const texts: string[] = [];
    for (let i = 0; i < ROUNDS; i++) texts.push(...(await round(user, other, i)));
    return texts;
  };
  const [adaTexts, bobTexts] = await Promise.all([work(ada, bob)(), work(bob, ada)()]);
  for (const text of adaTexts) expect(text).not.toContain(bob.marker);
  for (const text of bobTexts) expect(text).not.toContain(ada.marker);
  // Each still sees all of its own and the unscoped entry.
  for (const user of users) {
    const list = await h.json("GET", `/memory/facts?tag=${shared}&limit=500`, { token: user.token });
    expect(list.body.items.length).toBe(ROUNDS + 1);
    expect(list.body.items.filter((e: { subject?: string }) => e.subject === undefined).length).toBe(1);
  }
  const all = await h.json("GET", `/memory/facts?tag=${shared}&limit=500`, { token: owner });
  expect(all.body.items.length).toBe(2 * ROUNDS + 1);
});

test("the live stream, replayed from the start, shows each subject only its own and unscoped entries", async () => {
  const [ada, bob] = users as [User, User];
  // The last write of each is the end marker its reader waits for: no sleep, no race.
  const ends = await Promise.all(
    users.map((user) =>
      h.json("POST", "/memory/facts", {
        token: user.token,
        body: { content: `${user.marker} end of stream` },
      }),
    ),
  );
  const streams = await Promise.all(
    users.map((user, i) => readStream(user.token, ends[i]!.body.id as string)),
  );
  const [adaSeen, bobSeen] = streams as [StreamEntry[], StreamEntry[]];
  expect(adaSeen.every((e) => e.subject === ada.subject || e.subject === undefined)).toBe(true);
  expect(bobSeen.every((e) => e.subject === bob.subject || e.subject === undefined)).toBe(true);
  expect(JSON.stringify(adaSeen)).not.toContain(bob.marker);
  expect(JSON.stringify(bobSeen)).not.toContain(ada.marker);
  expect(adaSeen.filter((e) => e.subject === ada.subject).length).toBeGreaterThanOrEqual(ROUNDS + 1);
  // A scope filter on an unrestricted token: exactly that subject's.
  const filtered = await readStream(owner, ends[1]!.body.id as string, `&subject=${bob.subject}`);
  expect(filtered.every((e) => e.subject === bob.subject)).toBe(true);
  expect(filtered.length).toBe(bobSeen.filter((e) => e.subject === bob.subject).length);
});

interface StreamEntry {
  id: string;
  subject?: string;
  content?: string;
}

/** The stream's entries from the log's start until the entry `until` arrives. */
async function readStream(token: string, until: string, query = ""): Promise<StreamEntry[]> {
  const res = await h.app.handle(
    new Request(`http://localhost/memory/stream?last_event_id=0${query}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const seen: StreamEntry[] = [];
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the stream ended before its end marker");
      text += decoder.decode(value, { stream: true });
      let cut = text.indexOf("\n\n");
      while (cut >= 0) {
        const data = text
          .slice(0, cut)
          .split("\n")
          .find((line) => line.startsWith("data: "));
        text = text.slice(cut + 2);
        cut = text.indexOf("\n\n");
        if (!data) continue;
        const entry = JSON.parse(data.slice(6)).entry as StreamEntry;
        seen.push(entry);
        if (entry.id === until) return seen;
      }
    }
  } finally {
    await reader.cancel();
  }
}
