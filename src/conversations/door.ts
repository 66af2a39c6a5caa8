/**
 * The other doors into the conversation path (docs/conversations.md#the-other-doors): the messaging
 * bridge's threads and the mail watch's threads, each a session, for a tenant that turns it on
 * (`BRIDGE_CONVERSATIONS_{TENANT_ID}=true`, `MAIL_CONVERSATIONS_{TENANT_ID}=true`). A connector hands
 * the messages it has just stored; they are appended to their thread's session as turns, with the
 * rules extractor's entries (and the model extractor's job, when one is configured), in one
 * transaction of the tenant actor. A refusal (a message dated before the session's last turn, a
 * position another writer took) is logged and leaves the session as it was: the message itself is
 * stored already, as before.
 */
import { createHash } from "node:crypto";
import { isoOf } from "../models/common.ts";
import { type ConversationInput, MAX_MESSAGE_CHARS } from "../models/conversation.ts";
import type { Provenance } from "../models/origin.ts";
import { isScopeId } from "../models/scope.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { deterministicExtractor } from "./extract/deterministic.ts";
import { planConversation } from "./plan.ts";

/** The per-tenant switch of each door (a variable or a secrets-file key, `_{TENANT_ID}` appended). */
export const DOOR_SWITCHES = { bridge: "BRIDGE_CONVERSATIONS", mail: "MAIL_CONVERSATIONS" } as const;
export type DoorName = keyof typeof DOOR_SWITCHES;

/** One message a connector stored, as a turn of its thread's session. */
export interface DoorMessage {
  speaker: string;
  content: string;
  /** When it was said (epoch ms). */
  at: number;
}

/**
 * A thread's session id: `<prefix>:<part>:<part>` where that is a valid id (letters, digits and
 * `. _ : @ -`, at most 128), else `<prefix>:sha256-<32 hex>` of the parts: the same thread, the same id.
 */
export function doorSessionId(prefix: "chat" | "mail", ...parts: string[]): string {
  const plain = [prefix, ...parts].join(":");
  if (isScopeId(plain)) return plain;
  const digest = createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
  return `${prefix}:sha256-${digest}`;
}

export interface DoorDeps {
  secrets: Secrets;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  log?: (line: string) => void;
}

export class ConversationDoor {
  constructor(private readonly deps: DoorDeps) {}

  /** Whether the tenant routes this door's messages through the conversation path (off by default). */
  open(door: DoorName, tenantId: string): boolean {
    return this.deps.secrets.get(DOOR_SWITCHES[door], tenantId)?.trim().toLowerCase() === "true";
  }

  /** Appends `messages` to the session (never throws: the messages are stored already). */
  async append(
    door: DoorName,
    tenantId: string,
    sessionId: string,
    messages: DoorMessage[],
    provenance: Provenance,
  ): Promise<void> {
    const said = messages.filter((m) => m.content.trim() !== "" && m.speaker.trim() !== "");
    if (said.length === 0) return;
    const tenant = this.deps.tenant(tenantId);
    try {
      const offset = await tenant.ask({ type: "conversation.length", sessionId });
      const body: ConversationInput = {
        session_id: sessionId,
        offset,
        messages: said.map((m) => ({
          speaker: m.speaker.slice(0, 128),
          content: m.content.slice(0, MAX_MESSAGE_CHARS),
          at: isoOf(m.at),
        })),
      };
      const plan = planConversation(body, this.deps.clock.now(), deterministicExtractor);
      await tenant.ask({
        type: "conversation.add",
        plan,
        createdBy: `connector:${door === "bridge" ? "messaging" : "mail"}`,
        turnVectors: plan.turns.map(() => undefined),
        extractedVectors: plan.extracted.map(() => undefined),
        dryRun: false,
        provenance,
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.deps.log?.(`[conversations] ${door} session ${sessionId} of ${tenantId} not appended: ${why}`);
    }
  }
}
