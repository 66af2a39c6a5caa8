/**
 * Which transport a CRM stream uses: SSE from CRM_STREAM_URL when it is set, else Bayeux long-poll
 * over {instance}/cometd/{version}. Each resumes from the committed position.
 */
import { boundedFetch, type StreamHandle, type StreamHandlers } from "../../../src/connectors/transport.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { openBayeuxStream } from "./bayeux-transport.ts";
import type { CrmSettings } from "./settings.ts";
import { DEFAULT_CHANNELS } from "./settings.ts";
import { openSseStream } from "./sse-transport.ts";
import { type CrmReplayState, numericReplay } from "./state.ts";

/** A stream quiet this long (no event, no heartbeat comment) is taken for dead and reconnected. */
const DEFAULT_SILENCE_MS = 120_000;

export interface TransportDeps {
  clock: Clock;
  /** A stream silent this long is reconnected; default 2 minutes. */
  silenceMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export function openCrmTransport(
  settings: CrmSettings,
  accessToken: string,
  replay: CrmReplayState,
  deps: TransportDeps,
  handlers: StreamHandlers,
): StreamHandle {
  if (settings.streamUrl) {
    return openSseStream(
      {
        url: settings.streamUrl,
        accessToken,
        lastEventId: replay.cursor,
        silence: { clock: deps.clock, ms: deps.silenceMs ?? DEFAULT_SILENCE_MS },
        clock: deps.clock,
        defaultChannel: settings.channels[0] ?? DEFAULT_CHANNELS[0]!,
        // No timeout: the stream stays open; silence detection ends a dead one.
        fetch: boundedFetch(deps.fetch ?? fetch, deps.signal),
      },
      handlers,
    );
  }
  return openBayeuxStream(
    {
      endpoint: `${settings.instanceUrl}/cometd/${settings.apiVersion}`,
      accessToken,
      channels: settings.channels,
      replay: numericReplay(replay.channels),
      fetch: deps.fetch,
      clock: deps.clock,
    },
    handlers,
  );
}
