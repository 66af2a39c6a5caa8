import autocannon from "autocannon";

export interface LoadResult {
  name: string;
  /** 2xx responses a second: a refused or failed request never counts. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  name: string;
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** autocannon replaces `[<id>]` in the body with a unique id per request. */
  uniqueBodies?: boolean;
  /** Builds each request's body and headers (a webhook signed per request, with a fresh event id). */
  perRequest?: () => { body: string; headers: Record<string, string> };
}

/** Drives one URL with autocannon (from the npm registry) and keeps the figures we report. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  const perRequest = o.perRequest;
  const result = await autocannon({
    url: o.url,
    method: o.method ?? "GET",
    headers: o.headers,
    body: o.body,
    connections: o.connections ?? 32,
    duration: o.seconds ?? Number(process.env.BENCH_SECONDS ?? 5),
    idReplacement: o.uniqueBodies ?? false,
    ...(perRequest
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request) => {
                const built = perRequest();
                return {
                  ...req,
                  body: built.body,
                  headers: { ...req.headers, ...built.headers },
                };
              },
            },
          ],
        }
      : {}),
  });
  return {
    name: o.name,
    rps: Math.round(result["2xx"] / result.duration),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** p50 and p99 in milliseconds of `runs` sequential calls of `fn`, after a short warm-up. */
export async function latencies(
  runs: number,
  fn: (i: number) => Promise<unknown> | unknown,
): Promise<{ p50_ms: number; p99_ms: number }> {
  for (let i = 0; i < Math.min(50, runs); i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! * 1000) / 1000;
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}
