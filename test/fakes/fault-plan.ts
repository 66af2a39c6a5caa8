/**
 * Declarative fault injection for the local fakes of outside platforms (test/fakes/crm-platform.ts,
 * test/fakes/mail-provider.ts). A plan is a list of rules, "the next N requests to path P get
 * fault F"; a fake asks its plan once per request and applies what it gets:
 *
 *   plan.next("/stream", 2, { kind: "status", status: 429, retryAfter: 2 })   // 429, Retry-After: 2
 *   plan.next(/\/history$/, 1, { kind: "drop" })                             // connection reset
 *   plan.next("/cometd/62.0/handshake", 1, { kind: "delay", ms: 5000 })     // answered 5 s late
 *   plan.next("/stream", 1, { kind: "cut", afterEvents: 3 })                 // stream ends after 3 events
 *   plan.next("/cometd/62.0/connect", 1, { kind: "advice", reconnect: "retry", interval: 2000 })
 *
 * Delays are held on the test's clock (a ManualClock): an answer is exactly as slow as the test
 * makes time pass, and no test sleeps. The plan counts what it injected, by kind, and logs every
 * request with its time on that clock, so a test can check how long a connector waited.
 */
import type { Clock } from "../../src/runtime/clock.ts";

export type Fault =
  /** An error answer; `retryAfter` is sent as the `Retry-After` header (seconds or an HTTP date). */
  | { kind: "status"; status: number; retryAfter?: number | string; body?: unknown }
  /** The connection is reset in the middle of the answer (after the status line). */
  | { kind: "drop" }
  /** The normal answer, `ms` later on the plan's clock. */
  | { kind: "delay"; ms: number }
  /** A stream that ends after K events (SSE; `midFrame` leaves half an event behind), or a Bayeux
   * connect whose events are taken from the session and then lost with the connection. */
  | { kind: "cut"; afterEvents: number; midFrame?: boolean }
  /** Bayeux: the next connect reply carries this advice (with `error`: an unsuccessful reply). */
  | { kind: "advice"; reconnect: "retry" | "handshake" | "none"; interval?: number; error?: string };

export interface FaultRule {
  path: string | RegExp;
  /** Requests still to be hit. */
  times: number;
  fault: Fault;
  /** How the injection is counted; by default the status, or the kind. */
  label?: string;
}

export interface SeenRequest {
  path: string;
  /** The plan's clock when the request arrived. */
  at: number;
  /** The label of the fault it got, if any. */
  fault?: string;
  /** The fault itself. */
  planned?: Fault;
}

/** Faults a fake applies itself, inside its own handler (after the request was read). */
export type InlineFault = Extract<Fault, { kind: "cut" | "advice" }>;

export class FaultPlan {
  private readonly rules: FaultRule[] = [];
  /** Faults injected so far, by label ("429", "503", "drop", "slow", "cut", "advice:handshake", ...). */
  readonly injected: Record<string, number> = {};
  readonly requests: SeenRequest[] = [];
  /** Requests being held on the clock right now (a `delay` not yet due, whose client is still there). */
  holding = 0;

  constructor(private readonly clock: Clock) {}

  /** The next `times` requests to `path` get `fault` (after the faults already planned for it). */
  next(path: string | RegExp, times: number, fault: Fault, label?: string): this {
    this.rules.push({ path, times, fault, label });
    return this;
  }

  /** Forgets every planned fault not yet injected. */
  clear(): void {
    this.rules.length = 0;
  }

  /** Faults planned and not yet injected. */
  get planned(): number {
    return this.rules.reduce((sum, rule) => sum + rule.times, 0);
  }

  /** Total faults injected. */
  get total(): number {
    return Object.values(this.injected).reduce((sum, n) => sum + n, 0);
  }

  /** Requests to `path` so far (exact path or pattern). */
  seen(path: string | RegExp): SeenRequest[] {
    return this.requests.filter((r) => matches(path, r.path));
  }

  /**
   * Answers one request: the planned fault for its path when there is one (an error status, a reset
   * connection, a delay before the normal answer), else `answer()`. Faults the fake must apply
   * itself (a cut stream, Bayeux advice) are handed to `answer`.
   */
  async serve(
    path: string,
    answer: (fault?: InlineFault) => Response | Promise<Response>,
    /** The request's signal: a held answer whose client went away is let go (no timer is left behind). */
    signal?: AbortSignal,
  ): Promise<Response> {
    const fault = this.take(path);
    switch (fault?.kind) {
      case undefined:
        return answer();
      case "status":
        return statusAnswer(fault);
      case "drop":
        return resetConnection();
      case "delay":
        return (await this.hold(fault.ms, signal)) ? answer() : resetConnection();
      default:
        return answer(fault);
    }
  }

  /** Waits `ms` on the clock; false when the client went away first. */
  private hold(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    this.holding++;
    return new Promise<boolean>((resolve) => {
      const done = (due: boolean) => {
        signal?.removeEventListener("abort", gone);
        timer.cancel();
        this.holding--;
        resolve(due);
      };
      const gone = () => done(false);
      const timer = this.clock.setTimeout(() => done(true), ms);
      if (signal?.aborted) done(false);
      else signal?.addEventListener("abort", gone, { once: true });
    });
  }

  private take(path: string): Fault | undefined {
    const rule = this.rules.find((r) => r.times > 0 && matches(r.path, path));
    if (!rule) {
      this.requests.push({ path, at: this.clock.now() });
      return undefined;
    }
    rule.times--;
    if (rule.times === 0) this.rules.splice(this.rules.indexOf(rule), 1);
    const label = rule.label ?? labelOf(rule.fault);
    this.injected[label] = (this.injected[label] ?? 0) + 1;
    this.requests.push({ path, at: this.clock.now(), fault: label, planned: rule.fault });
    return rule.fault;
  }
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : pattern.test(path);
}

function labelOf(fault: Fault): string {
  switch (fault.kind) {
    case "status":
      return String(fault.status);
    case "delay":
      return "slow";
    case "advice":
      return `advice:${fault.reconnect}`;
    default:
      return fault.kind;
  }
}

function statusAnswer(fault: Extract<Fault, { kind: "status" }>): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
  const body = fault.body ?? { error: { code: fault.status, message: "injected fault" } };
  return new Response(JSON.stringify(body), { status: fault.status, headers });
}

/**
 * The connection is reset in the middle of the answer: the status line and a first chunk are on
 * the wire, then the socket goes (the client's body read fails with ECONNRESET). A reset before
 * any byte would not reach the connector deterministically: Bun's fetch retries a GET silently
 * when a reused keep-alive connection is reset before it answered.
 */
export function resetConnection(): Response {
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pulls++ === 0) {
        controller.enqueue(new TextEncoder().encode(": partial"));
        return;
      }
      // One turn of the event loop lets the first chunk leave before the reset.
      await new Promise((resolve) => setTimeout(resolve, 1));
      controller.error();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}
