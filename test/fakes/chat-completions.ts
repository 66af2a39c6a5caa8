/**
 * A local OpenAI-compatible chat completions service (`POST /chat/completions` on 127.0.0.1) that
 * holds every request until the test answers it: `next()` resolves with the next call received
 * (its body, the key it was sent with) and the test answers it with a status and a content, or
 * leaves it unanswered (a timeout the runtime's manual clock then fires).
 */
import type { Server } from "bun";

export interface HeldCall {
  // biome-ignore lint/suspicious/noExplicitAny: tests read the request body field by field
  body: any;
  authorization: string | null;
  /** The turns as the prompt numbers them (the user message). */
  prompt: string;
  /** Answers a completion whose message content is `content` (an object is sent as its JSON). */
  reply(content: unknown): void;
  /** Answers an HTTP error (with `headers`: a `Retry-After`, say). */
  fail(status: number, body?: string, headers?: Record<string, string>): void;
}

export interface FakeChat {
  url: string;
  /** Calls received so far. */
  calls: number;
  /** The next call not taken yet (received already, or when it is). */
  next(): Promise<HeldCall>;
  stop(): void;
}

export function startFakeChat(): FakeChat {
  const arrived: HeldCall[] = [];
  const waiting: Array<(call: HeldCall) => void> = [];
  const open: Array<(res: Response) => void> = [];
  const fake: FakeChat = {
    url: "",
    calls: 0,
    next: () => {
      const call = arrived.shift();
      return call ? Promise.resolve(call) : new Promise((resolve) => waiting.push(resolve));
    },
    stop: () => {
      for (const answer of open.splice(0)) answer(new Response("stopped", { status: 503 }));
      server.stop(true);
    },
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      // biome-ignore lint/suspicious/noExplicitAny: the request body read field by field
      const body: any = await req.json();
      fake.calls++;
      return new Promise<Response>((resolve) => {
        open.push(resolve);
        const answer = (res: Response) => {
          open.splice(open.indexOf(resolve), 1);
          resolve(res);
        };
        const call: HeldCall = {
          body,
          authorization: req.headers.get("authorization"),
          prompt: body.messages?.at(-1)?.content ?? "",
          reply: (content) => {
            const text = typeof content === "string" ? content : JSON.stringify(content);
            answer(Response.json({ choices: [{ message: { role: "assistant", content: text } }] }));
          },
          fail: (status, text = "{}", headers = {}) => answer(new Response(text, { status, headers })),
        };
        const taker = waiting.shift();
        if (taker) taker(call);
        else arrived.push(call);
      });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/v1`;
  return fake;
}
