/**
 * Headers kept with a dead letter: enough to understand the delivery, never a credential.
 * Anything that looks like a secret, token, signature or cookie is dropped by name.
 */
const SECRET_LIKE = /authorization|signature|token|secret|cookie|hmac|api[-_]?key|x-hub-|password|session/i;
const MAX_HEADERS = 32;
const MAX_VALUE = 512;

export function sanitiseHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  headers.forEach((value, name) => {
    if (count >= MAX_HEADERS || SECRET_LIKE.test(name)) return;
    kept[name] = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
    count++;
  });
  return kept;
}
