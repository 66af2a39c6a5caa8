/**
 * A local OTLP/HTTP receiver for the tracing tests: Bun.serve on 127.0.0.1 taking the JSON the
 * runtime's exporter (`@opentelemetry/exporter-trace-otlp-http`) POSTs to `/v1/traces`, flattened
 * into one list of spans.
 */
import { Receiver } from "../outbound/receiver.ts";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number; message?: string };
  /** The resource's attributes (service.name, service.version, …). */
  resource: Record<string, string | number | boolean>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
};
type KeyValue = { key: string; value: AnyValue };

export class OtlpReceiver {
  private constructor(readonly receiver: Receiver) {}

  static async start(): Promise<OtlpReceiver> {
    return new OtlpReceiver(await Receiver.start());
  }

  /** The base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): the exporter appends `/v1/traces`. */
  get endpoint(): string {
    return this.receiver.url("");
  }

  /** Every span received so far, from every export request. */
  spans(): ReceivedSpan[] {
    const out: ReceivedSpan[] = [];
    for (const request of this.receiver.received) {
      if (request.path !== "/v1/traces") continue;
      for (const rs of request.json?.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            out.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              status: s.status,
              resource,
            });
      }
    }
    return out;
  }

  /** The one span named `name` in trace `traceId` (fails unless exactly one). */
  one(name: string, traceId?: string): ReceivedSpan {
    const found = this.spans().filter(
      (s) => s.name === name && (traceId === undefined || s.traceId === traceId),
    );
    if (found.length !== 1)
      throw new Error(`${found.length} spans named ${name}; names: ${this.spans().map((s) => s.name)}`);
    return found[0]!;
  }

  /** The spans whose parent is `parent`. */
  childrenOf(parent: ReceivedSpan): ReceivedSpan[] {
    return this.spans().filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
  }

  stop(): Promise<void> {
    return this.receiver.stop();
  }
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  return out;
}
