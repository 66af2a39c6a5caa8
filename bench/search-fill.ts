import { syntheticCorpus } from "../test/embedding/synthetic-corpus.ts";

/** Posts `docs` as facts with `concurrency` requests in flight; returns the ids written. */
export async function fillOverHttp(
  url: string,
  token: string,
  docs: string[],
  concurrency = 64,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < docs.length) {
      const content = docs[next++]!;
      const res = await fetch(`${url}/memory/facts`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ content, tags: [`t${content.length % 7}`] }),
      });
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`fill: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

export function corpus(n: number, queries: number, seed: number) {
  return syntheticCorpus(n, queries, seed);
}
