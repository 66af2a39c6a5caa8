import type { Later } from "./later.ts";

/** A protocol maps each message type to its payload and its reply. Messages are plain data. */
export type Protocol = Record<string, { msg: object; reply: unknown }>;

export type MessageOf<P extends Protocol, K extends keyof P & string = keyof P & string> = {
  [T in K]: { type: T } & P[T]["msg"];
}[K];

export type ReplyOf<P extends Protocol, K extends keyof P> = P[K]["reply"];

export type Handlers<P extends Protocol> = {
  [K in keyof P & string]: (
    msg: MessageOf<P, K>,
  ) => ReplyOf<P, K> | Promise<ReplyOf<P, K>> | Later<ReplyOf<P, K>> | Promise<Later<ReplyOf<P, K>>>;
};

/** What an actor does: resources opened on start and closed on stop, and one handler per message. */
export interface Behaviour<P extends Protocol> {
  handlers: Handlers<P>;
  stop?(): void | Promise<void>;
}

export type BehaviourFactory<P extends Protocol> = (key: string) => Behaviour<P> | Promise<Behaviour<P>>;
