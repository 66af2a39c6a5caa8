// One folder per connector actor: the mail watch and what only it uses (watch schedule, catch-up queue); shared plumbing is in src/connectors/.
/**
 * The mail connector of one tenant (SOURCES.md, `mail` Expansion and Watch), `mail-watch:<tenant>`.
 * One message at a time, so two notifications never expand the same history range twice.
 *
 * The parts: expansion.ts (a notification → the history since the mark, as drafts and the state
 * committed with them) with expansion-memory.ts (the mark, seen threads and recent notifications,
 * and undoing a refused commit); watch.ts (starting and renewing the mailbox watch, on the clock);
 * catch-up.ts (replaying expansions that failed for a passing reason: health shows
 * `pending_retries` until they went through); state.ts (what is stored in the tenant's vault, the
 * status as `status:mail`); mail-access.ts (credentials and the API client).
 */
import { Backoff } from "../../../src/connectors/backoff.ts";
import type { MailWatchProtocol } from "../../../src/protocols/connector-protocol.ts";
import type { Behaviour } from "../../../src/runtime/protocol.ts";
import { CatchUpQueue, type ReplayDeadLetter, replayWaiting } from "./catch-up.ts";
import { Expansion, type ExpansionDeps } from "./expansion.ts";
import { MailAccess, type MailAccessDeps } from "./mail-access.ts";
import { type MailStateDeps, MailWatchState } from "./state.ts";
import { type WatchDeps, WatchRenewal } from "./watch.ts";

export interface MailWatchDeps
  extends MailAccessDeps,
    MailStateDeps,
    WatchDeps,
    Pick<ExpansionDeps, "converse"> {
  random?: () => number;
  retry?: { baseMs: number; maxMs: number };
  /**
   * Replays this tenant's dead letter of a mail notification through the ingest pipeline (which
   * expands it through this actor again). Without it, failed expansions wait for an operator.
   */
  replay?: ReplayDeadLetter;
}

export function mailWatchBehaviour(tenantId: string, deps: MailWatchDeps): Behaviour<MailWatchProtocol> {
  return new MailWatch(tenantId, deps).behaviour();
}

/** The actor: it builds the parts and routes each message to one of them. */
class MailWatch {
  private readonly state: MailWatchState;
  private readonly watch: WatchRenewal;
  private readonly expansion: Expansion;
  /** Notifications whose expansion failed for a passing reason, replayed on the clock. */
  private readonly catchUp: CatchUpQueue;

  constructor(
    tenantId: string,
    private readonly deps: MailWatchDeps,
  ) {
    const retry = { baseMs: 1_000, maxMs: 10 * 60_000, ...deps.retry, random: deps.random };
    this.catchUp = new CatchUpQueue(deps.clock, new Backoff(retry), () => {
      if (!this.state.stopping) deps.tellSelf({ type: "mail.catchup" });
    });
    this.state = new MailWatchState(tenantId, deps, this.catchUp);
    const access = new MailAccess(tenantId, deps);
    this.watch = new WatchRenewal(this.state, access, new Backoff(retry), deps);
    this.expansion = new Expansion(this.state, access, this.catchUp, deps);
    deps.signal?.addEventListener("abort", () => this.halt(), { once: true });
  }

  behaviour(): Behaviour<MailWatchProtocol> {
    const { state, watch, expansion } = this;
    return {
      handlers: {
        "mail.start": () => watch.start(),
        "mail.renew": () => watch.renewFromTimer(),
        "mail.expand": ({ event }) => expansion.expand(event),
        "mail.settled": ({ eventId, committed }) => expansion.settled(eventId, committed),
        // Not awaited: each replay expands through this actor's own mailbox.
        "mail.catchup": () => void this.catchUpNow(),
        "mail.status": () => state.snapshot(),
        "mail.stop": async () => {
          this.halt();
          state.update({ state: "stopped", next_renewal_at: undefined });
          await state.saveStatus();
        },
      },
      stop: () => this.halt(),
    };
  }

  private halt(): void {
    this.watch.halt();
    this.catchUp.cancel();
  }

  private async catchUpNow(): Promise<void> {
    const { state } = this;
    const done = await replayWaiting(this.catchUp, this.deps.replay, {
      stopping: () => state.stopping,
      log: (line) => state.log(line),
    });
    if (done) await state.saveStatus();
  }
}
