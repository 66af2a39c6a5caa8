/**
 * The reply subjects of forwarded requests (docs/cluster.md, "Request forwarding"): one wildcard
 * subscription per connection (`<prefix>.*`, made on the first request), and each request a token
 * of its own under it (`<prefix>.<token>`), so a forward costs no SUB and UNSUB of its own (nor an
 * insert and a removal in the server's subscription list). Messages are handed to the request of
 * their token; a message for a token no longer waiting (a late part, an answer after the timeout)
 * is dropped, as the server dropped it when each request unsubscribed its own inbox.
 *
 * When the subscription ends (the connection closed, or the server refused it), every request
 * waiting on it is told at once (`lost`) instead of waiting out its timeout; the next request makes
 * a new subscription if the connection is still open.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";

/** One request's side: its messages, and the end of the subscription they would come on. */
export interface ReplyHandlers {
  message(msg: Msg): void;
  /** The subscription ended: no message will come. */
  lost(): void;
}

/** A request's reply subject, until it is closed. */
export interface ReplySlot {
  subject: string;
  /** Stops handing messages to this request (idempotent). */
  close(): void;
}

/** The subscription and the requests waiting on it. */
interface Listening {
  subscription: Subscription;
  /** `<prefix>.`: what a reply subject starts with. */
  base: string;
  waiting: Map<string, ReplyHandlers>;
}

const inboxes = new WeakMap<NatsConnection, ReplyInbox>();

export class ReplyInbox {
  private listening: Listening | undefined;
  /** The last token given (tokens are never reused, so a late message cannot reach a newer request). */
  private sequence = 0;

  private constructor(private readonly nc: NatsConnection) {}

  /** The connection's reply inbox (one per connection). */
  static of(nc: NatsConnection): ReplyInbox {
    let inbox = inboxes.get(nc);
    if (!inbox) {
      inbox = new ReplyInbox(nc);
      inboxes.set(nc, inbox);
    }
    return inbox;
  }

  /** A reply subject of its own for one request; throws when the connection is closed. */
  open(handlers: ReplyHandlers): ReplySlot {
    const listening = this.subscribed();
    const token = (++this.sequence).toString(36);
    listening.waiting.set(token, handlers);
    return {
      subject: listening.base + token,
      close: () => {
        if (listening.waiting.get(token) === handlers) listening.waiting.delete(token);
      },
    };
  }

  /** Requests waiting for their answer now. */
  get waiting(): number {
    return this.listening?.waiting.size ?? 0;
  }

  private subscribed(): Listening {
    if (this.listening && !this.listening.subscription.isClosed()) return this.listening;
    const base = `${createInbox()}.`;
    const waiting = new Map<string, ReplyHandlers>();
    const subscription = this.nc.subscribe(`${base}*`, {
      callback: (error, msg) => {
        if (error) return this.lose(listening);
        waiting.get(msg.subject.slice(base.length))?.message(msg);
      },
    });
    const listening: Listening = { subscription, base, waiting };
    void subscription.closed.then(
      () => this.lose(listening),
      () => this.lose(listening),
    );
    this.listening = listening;
    return listening;
  }

  /** The subscription ended: its waiting requests end now (a new one serves the next request). */
  private lose(listening: Listening): void {
    if (this.listening === listening) this.listening = undefined;
    if (!listening.subscription.isClosed()) listening.subscription.unsubscribe();
    const ended = [...listening.waiting.values()];
    listening.waiting.clear();
    for (const handlers of ended) handlers.lost();
  }
}
