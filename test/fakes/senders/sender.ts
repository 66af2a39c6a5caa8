/**
 * A fake platform sender: signs deliveries the way its platform does, so tests post exactly what a
 * platform configured with a tenant's webhook URL and secret would post. One file per source.
 */
export interface SignOptions {
  /** Epoch ms of the harness clock: timestamped schemes sign with it. */
  now: number;
  /** The full URL the platform calls (URL-signing schemes sign it). */
  url: string;
}

export interface Signed {
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Appended to the webhook URL, with its `?` (a handshake's `?validationToken=`). */
  query?: string;
}

export interface PlatformSender {
  source: string;
  /** Base variable name (without `_{TENANT_ID}`) → value. */
  secrets: Record<string, string>;
  /** A delivery of `body` signed as the platform signs it. */
  sign(body: string, opts: SignOptions): Signed | Promise<Signed>;
  /**
   * The same delivery carrying several signatures of which only one is made with the tenant's
   * secret (a platform rotating its secret). Absent where the platform sends a token, not a signature.
   */
  signRotated?(body: string, opts: SignOptions): Signed | Promise<Signed>;
  /**
   * Exactly these bytes, signed as validly as the platform would (hostile bodies, which `sign` may
   * not understand). Absent where `sign` already signs any bytes as they are.
   */
  signRaw?(body: Uint8Array, opts: SignOptions): Signed;
  /** For timestamped schemes: a delivery signed this long ago is refused. */
  staleMs?: number;
  /** Whether the signature covers the body (a token scheme's does not). */
  signsBody: boolean;
}
