/** A small seeded PRNG (mulberry32), so a randomised test can be replayed from its printed seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a run: `TEST_SEED` when given (to replay a failure), else a fresh one. */
export function testSeed(): number {
  const given = Number(process.env.TEST_SEED);
  return Number.isSafeInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
}
