import { ValidationFailed } from "../../errors/domain-errors.ts";

/**
 * Vector keys: an entry id is 8 lower-case hex characters, so the index keys it by the 32-bit
 * number those spell (4 bytes a vector instead of a string).
 */
export const SHA8 = /^[0-9a-f]{8}$/;

export function parseId(id: string): number {
  if (!SHA8.test(id)) {
    const message = `entry id must be 8 lower-case hex characters`;
    throw new ValidationFailed(message, [{ path: "/id", message }]);
  }
  return keyOf(id);
}

export function keyOf(id: string): number {
  return Number.parseInt(id, 16);
}

export function idOf(key: number): string {
  return key.toString(16).padStart(8, "0");
}
