/** Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic integers between `min` and `max` (delays for kill points, for example). */
export function seededBetween(seed: number): (min: number, max: number) => number {
  const next = seededRandom(seed);
  return (min, max) => Math.round(min + next() * (max - min));
}
