/** Echoes caller input into messages only when it is short and plain. */
export function safeEcho(value: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : "(malformed)";
}
