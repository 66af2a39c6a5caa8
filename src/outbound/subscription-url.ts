import { insecureUrlReason } from "../connectors/url-policy.ts";

/**
 * Why a subscription URL is refused, or undefined. Events are signed and may carry a tenant's
 * memory, so they go over https only (plain http for loopback receivers, as every outbound call
 * here). Credentials in the URL would be shown by every list and could reach logs: the signing
 * secret is how a receiver authenticates the sender.
 */
export function subscriptionUrlProblem(raw: string): string | undefined {
  const insecure = insecureUrlReason("url", raw);
  if (insecure) return insecure;
  const url = new URL(raw);
  if (url.username || url.password) return "url must not carry credentials (the signature authenticates)";
  if (!url.hostname) return "url must name a host";
  return undefined;
}
