import { ValidationFailed } from "../errors/domain-errors.ts";
import type { Embedder } from "./embedder.ts";

const MESSAGE = "this tenant's embedder is `client`: send `embedding`";

/**
 * The runtime embeds nothing itself: callers send `embedding` with every entry and query,
 * checked and normalised with `toVector`. Reaching `embed` means a caller sent text only.
 */
export class ClientEmbedder implements Embedder {
  readonly kind = "client" as const;

  constructor(readonly dims: number) {}

  async embed(_texts: string[]): Promise<Float32Array[]> {
    throw new ValidationFailed(MESSAGE, [{ path: "/embedding", message: MESSAGE }]);
  }
}
