/**
 * Forwarded requests' answers on one reply subscription per connection (src/cluster/reply-inbox.ts,
 * used by `requestInParts`), against a real nats-server: each request's messages reach it alone,
 * answers in parts are put together, and every way of not answering (no responder, a timeout, a
 * publish refused, the connection closed) ends the request with undefined.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Msg, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import type { EncodedMessage } from "../../src/cluster/forward-codec.ts";
import { HEADER_ROOM, inParts, requestInParts } from "../../src/cluster/forward-parts.ts";
import { ReplyInbox } from "../../src/cluster/reply-inbox.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";

const text = new TextEncoder();
const read = new TextDecoder();

let server: NatsServer;
/** The owner's side: the responders. */
let owner: NatsConnection;

function request(body: string): EncodedMessage {
  const headers = natsHeaders();
  headers.set("mr-method", "GET");
  return { headers, payload: text.encode(body) };
}

function answer(body: string | Uint8Array): EncodedMessage {
  const headers = natsHeaders();
  headers.set("mr-status", "200");
  return { headers, payload: typeof body === "string" ? text.encode(body) : body };
}

/** The connection's subscriptions as the client library keeps them (its SUBs to the server). */
function subscriptionsOf(nc: NatsConnection): number {
  return (nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
}

/** A forwarding connection whose `subscribe` calls are counted. */
async function forwarding(): Promise<{ nc: NatsConnection; subscribes: () => number }> {
  const nc = await connect({ servers: server.url });
  const subscribe = nc.subscribe.bind(nc);
  let count = 0;
  nc.subscribe = (subject, opts) => {
    count++;
    return subscribe(subject, opts);
  };
  return { nc, subscribes: () => count };
}

/** Answers on `subject` with `reply(msg)` after `delayMs(msg)`; nothing when `reply` gives undefined. */
function responder(
  subject: string,
  reply: (msg: Msg) => EncodedMessage[] | undefined,
  delayMs: (msg: Msg) => number = () => 0,
) {
  return owner.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return;
      setTimeout(() => {
        for (const part of reply(msg) ?? []) msg.respond(part.payload, { headers: part.headers });
      }, delayMs(msg));
    },
  });
}

beforeAll(async () => {
  server = await startNatsServer();
  owner = await connect({ servers: server.url });
  // Echoes the request's body, after up to 20 ms (so answers come back out of order).
  responder(
    "t.echo",
    (msg) => [answer(`answer to ${read.decode(msg.data)}`)],
    () => Math.floor(Math.random() * 20),
  );
  // Answers in parts of 1000 bytes (a max_payload of HEADER_ROOM + 1000): the request's body
  // repeated to `size` bytes.
  responder("t.parts", (msg) => {
    const [tag, size] = read.decode(msg.data).split(":");
    const body = new Uint8Array(Number(size));
    for (let i = 0; i < body.length; i++) body[i] = tag!.charCodeAt(i % tag!.length);
    return inParts(answer(body), HEADER_ROOM + 1000);
  });
  // Listens and never answers.
  responder("t.silent", () => undefined);
  // Answers after the delay the request names.
  responder(
    "t.slow",
    (msg) => [answer(`slow ${read.decode(msg.data)}`)],
    (msg) => Number(read.decode(msg.data).split(":")[1]),
  );
  // A header part announcing two body parts, then part 1 where part 0 is due.
  owner.subscribe("t.disordered", {
    callback: (_error, msg) => {
      const head = natsHeaders();
      head.set("mr-parts", "2");
      msg.respond(new Uint8Array(), { headers: head });
      const part = natsHeaders();
      part.set("mr-part", "1");
      msg.respond(text.encode("second half"), { headers: part });
    },
  });
  await owner.flush();
});

afterAll(async () => {
  await owner.close();
  await server.stop();
});

describe("forwarded requests on one reply subscription per connection", () => {
  test("200 concurrent requests each get their own answer, out of order, with no cross-talk", async () => {
    const { nc } = await forwarding();
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => requestInParts(nc, "t.echo", request(`request ${i}`), 5000)),
      );
      answers.forEach((got, i) => {
        expect(got?.headers?.get("mr-status")).toBe("200");
        expect(read.decode(got!.data)).toBe(`answer to request ${i}`);
      });
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("N requests use ONE subscription, made on the first and kept", async () => {
    const { nc, subscribes } = await forwarding();
    try {
      expect(subscriptionsOf(nc)).toBe(0);
      const pending = Array.from({ length: 50 }, (_, i) =>
        requestInParts(nc, "t.echo", request(`${i}`), 5000),
      );
      expect(subscriptionsOf(nc)).toBe(1);
      expect(ReplyInbox.of(nc).waiting).toBe(50);
      await Promise.all(pending);
      for (let i = 0; i < 20; i++) await requestInParts(nc, "t.echo", request(`then ${i}`), 5000);
      expect(subscribes()).toBe(1);
      expect(subscriptionsOf(nc)).toBe(1);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("multi-part answers are reassembled, 20 at once with their parts interleaved", async () => {
    const { nc } = await forwarding();
    try {
      const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}-`);
      const answers = await Promise.all(
        tags.map((tag) => requestInParts(nc, "t.parts", request(`${tag}:5500`), 5000)),
      );
      answers.forEach((got, i) => {
        expect(got?.headers?.get("mr-status")).toBe("200");
        expect(got?.headers?.get("mr-parts")).toBe("6");
        const body = read.decode(got!.data);
        expect(body.length).toBe(5500);
        expect(body).toBe(tags[i]!.repeat(Math.ceil(5500 / tags[i]!.length)).slice(0, 5500));
      });
      // One message answers fit in: no parts.
      const small = await requestInParts(nc, "t.parts", request("s:999"), 5000);
      expect(small?.headers?.get("mr-parts")).toBe("");
      expect(small?.data.length).toBe(999);
    } finally {
      await nc.close();
    }
  });

  test("a part out of order ends the request with undefined, not a wrong body", async () => {
    const { nc } = await forwarding();
    try {
      const started = performance.now();
      expect(await requestInParts(nc, "t.disordered", request("x"), 5000)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("a subject with no responder: undefined at once (the 503 status message), not at the timeout", async () => {
    const { nc } = await forwarding();
    try {
      const started = performance.now();
      expect(await requestInParts(nc, "t.nobody", request("x"), 10_000)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
      // The inbox still serves the next request.
      const next = await requestInParts(nc, "t.echo", request("after"), 5000);
      expect(read.decode(next!.data)).toBe("answer to after");
    } finally {
      await nc.close();
    }
  });

  test("no answer within the timeout: undefined once it is over", async () => {
    const { nc } = await forwarding();
    try {
      const started = performance.now();
      expect(await requestInParts(nc, "t.silent", request("x"), 150)).toBeUndefined();
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(140);
      expect(waited).toBeLessThan(3000);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("each 'pull' on activity starts the timeout again", async () => {
    const { nc } = await forwarding();
    try {
      const activity = new EventTarget();
      const pulls = setInterval(() => activity.dispatchEvent(new Event("pull")), 50);
      try {
        // Answered after 500 ms, with a timeout of 200 ms restarted every 50 ms.
        const got = await requestInParts(nc, "t.slow", request("pulled:500"), 200, activity);
        expect(read.decode(got!.data)).toBe("slow pulled:500");
      } finally {
        clearInterval(pulls);
      }
      // Without pulls, the same answer is too late.
      expect(await requestInParts(nc, "t.slow", request("unpulled:500"), 200)).toBeUndefined();
    } finally {
      await nc.close();
    }
  });

  test("a reply after the timeout is dropped: it reaches no later request", async () => {
    const { nc } = await forwarding();
    try {
      // Answered after 300 ms; given up at 100 ms.
      expect(await requestInParts(nc, "t.slow", request("first:300"), 100)).toBeUndefined();
      const before = nc.stats().inMsgs;
      // Waiting while the first answer arrives (at ~300 ms) on the same subscription.
      const second = await requestInParts(nc, "t.slow", request("second:500"), 5000);
      expect(read.decode(second!.data)).toBe("slow second:500");
      // Both answers came to this connection: the late one was dropped, not handed to the second.
      expect(nc.stats().inMsgs - before).toBe(2);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("a publish that throws (a request over max_payload) ends the request with undefined", async () => {
    const { nc } = await forwarding();
    try {
      const tooLarge = { headers: natsHeaders(), payload: new Uint8Array(nc.info!.max_payload + 1) };
      const started = performance.now();
      expect(await requestInParts(nc, "t.echo", tooLarge, 10_000)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(ReplyInbox.of(nc).waiting).toBe(0);
    } finally {
      await nc.close();
    }
  });

  test("a closed connection ends the requests waiting on it at once, and any later one", async () => {
    const { nc } = await forwarding();
    const pending = Array.from({ length: 5 }, (_, i) =>
      requestInParts(nc, "t.silent", request(`${i}`), 10_000),
    );
    await nc.flush();
    expect(ReplyInbox.of(nc).waiting).toBe(5);
    const started = performance.now();
    await nc.close();
    expect(await Promise.all(pending)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(ReplyInbox.of(nc).waiting).toBe(0);
    expect(await requestInParts(nc, "t.echo", request("closed"), 10_000)).toBeUndefined();
  });
});
