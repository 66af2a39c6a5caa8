/**
 * The noisy neighbour's flood, run as its own process (`bun run test/soak/flood.ts`) so that its
 * load does not share an event loop with the latency being measured. FLOOD_CONNECTIONS loops send
 * one tenant's reads, searches and writes back to back, ignoring Retry-After, while the flood is
 * on. Driven by lines on stdin: `on`, `off` (each acknowledged by the same word on stdout) and
 * `end` (answered by the figures as one JSON line, then exit). Bounded by FLOOD_MAX_REQUESTS and
 * FLOOD_MAX_SECONDS whatever it is told.
 */

export interface FloodFigures {
  requests: number;
  /** Answers by status code ("200", "429", …). */
  statuses: Record<string, number>;
  /** Requests that got no answer at all. */
  errors: number;
  /** How long the flood was on, in all. */
  seconds: number;
}

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const base = setting("FLOOD_BASE");
const headers = { authorization: `Bearer ${setting("FLOOD_TOKEN")}`, "content-type": "application/json" };
const connections = Number(setting("FLOOD_CONNECTIONS"));
const maxRequests = Number(setting("FLOOD_MAX_REQUESTS"));
const deadline = performance.now() + Number(setting("FLOOD_MAX_SECONDS")) * 1000;

const figures: FloodFigures = { requests: 0, statuses: {}, errors: 0, seconds: 0 };
let on = false;
let onSince = 0;
let ended = false;
/** Wakes the loops when the flood is switched on (or ended). */
let wake: () => void = () => undefined;
let woken = new Promise<void>((resolve) => {
  wake = resolve;
});

/** A page of entries, a search, a write: in turn. */
function send(i: number): Promise<Response> {
  const kind = i % 3;
  if (kind === 0) return fetch(`${base}/memory/facts?limit=20`, { headers });
  const body =
    kind === 1
      ? { query: "noisy neighbour quarterly review" }
      : { content: `flood write ${process.pid}-${i}` };
  return fetch(`${base}/memory/${kind === 1 ? "search" : "facts"}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
}

async function loop(offset: number): Promise<void> {
  for (let i = offset; !ended; i += connections) {
    if (!on) {
      await woken;
      continue;
    }
    if (figures.requests >= maxRequests || performance.now() > deadline) return;
    figures.requests++;
    try {
      const res = await send(i);
      await res.arrayBuffer();
      figures.statuses[res.status] = (figures.statuses[res.status] ?? 0) + 1;
    } catch {
      figures.errors++;
    }
  }
}

function switchTo(state: boolean): void {
  if (state === on) return;
  on = state;
  if (on) {
    onSince = performance.now();
    wake();
  } else {
    figures.seconds += (performance.now() - onSince) / 1000;
    woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}

const loops = Array.from({ length: connections }, (_, i) => loop(i));
for await (const chunk of Bun.stdin.stream()) {
  for (const command of new TextDecoder().decode(chunk).split("\n")) {
    if (command === "on" || command === "off") {
      switchTo(command === "on");
      console.log(command);
    } else if (command === "end") {
      switchTo(false);
      ended = true;
      wake();
      await Promise.all(loops);
      console.log(JSON.stringify(figures));
      process.exit(0);
    }
  }
}
