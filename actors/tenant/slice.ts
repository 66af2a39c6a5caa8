import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import type { Handlers } from "../../src/runtime/protocol.ts";

/**
 * The part of the tenant protocol one feature slice answers. tenant.ts merges the slices' parts
 * into the actor's handlers; the type checker sees that together they answer every message.
 */
export type SliceHandlers<K extends keyof TenantProtocol & string> = Handlers<Pick<TenantProtocol, K>>;
