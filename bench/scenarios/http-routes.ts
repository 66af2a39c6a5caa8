import { type LoadResult, load } from "../load.ts";
import { indexSettled, postFact, type TenantToken } from "../search-fill.ts";

/**
 * Rounds of autocannon loads, each round measuring the bare baselines and the service back to
 * back so that each ratio compares loads taken moments apart:
 * - bare `GET /ping` (32 connections): the baseline of a route doing nothing;
 * - bare `GET /entry` (32 connections): the baseline of a route answering a small JSON object;
 * - service `GET /memory/facts/{id}` (32 connections, JWT): a read through auth and the tenant actor;
 * - service `POST /memory/facts` (64 connections, a unique body each): durable single writes, each
 *   answered after its commit; the tenant's index is then left to settle before the next round.
 */
export interface RouteRound {
  ping: LoadResult;
  entry: LoadResult;
  get_by_id: LoadResult;
  write: LoadResult;
  /** Seconds the writes' vectors took to reach the graph after the write load. */
  write_index_settle_s: number;
}

export async function routeRounds(o: {
  bareUrl: string;
  serviceUrl: string;
  reader: TenantToken;
  writer: TenantToken;
  rounds: number;
  log: (line: string) => void;
}): Promise<RouteRound[]> {
  const factId = await postFact(o.serviceUrl, o.reader.token, "a fact to read back by id");
  const out: RouteRound[] = [];
  for (let r = 0; r < o.rounds; r++) {
    const ping = await load({ name: "bare GET /ping", url: `${o.bareUrl}/ping` });
    const entry = await load({ name: "bare GET /entry", url: `${o.bareUrl}/entry` });
    const getById = await load({
      name: "service GET /memory/facts/{id}",
      url: `${o.serviceUrl}/memory/facts/${factId}`,
      headers: { authorization: `Bearer ${o.reader.token}` },
    });
    const write = await load({
      name: "service POST /memory/facts",
      url: `${o.serviceUrl}/memory/facts`,
      method: "POST",
      headers: { authorization: `Bearer ${o.writer.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        content: `bench fact [<id>] about billing latency, round ${r}`,
        tags: ["bench"],
      }),
      connections: 64,
      uniqueBodies: true,
    });
    const settle = Math.round((await indexSettled(o.serviceUrl, o.writer)) * 100) / 100;
    out.push({ ping, entry, get_by_id: getById, write, write_index_settle_s: settle });
    o.log(
      `  round ${r + 1}: ping ${ping.rps}/s, entry ${entry.rps}/s, get ${getById.rps}/s, write ${write.rps}/s (index settled in ${settle} s)`,
    );
  }
  return out;
}
