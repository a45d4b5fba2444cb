import bs58 from "bs58";

// Deterministic randomness for the demo market: every number is a pure function
// of (seed, stream, index), so the same clock readings give the same market in every run and the
// answer never depends on the order in which prices are asked for.

const DEMO_SEED = 0x5eed_2026;

/** A 32-bit avalanche hash of a few integers (murmur3's finalizer over a running mix). */
function hash32(...parts: number[]): number {
  let h = DEMO_SEED >>> 0;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
    // Fold in the high part of indices beyond 32 bits (times in ms).
    h = (h + Math.floor(p / 2 ** 32)) >>> 0;
  }
  return h;
}

/** Uniform in (0, 1). */
export function uniform(...parts: number[]): number {
  return (hash32(...parts) + 0.5) / 2 ** 32;
}

/** Standard normal (Box–Muller over two uniforms of the same key). */
export function gaussian(...parts: number[]): number {
  const u = uniform(...parts, 1);
  const v = uniform(...parts, 2);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** `n` deterministic bytes for (label, parts): addresses, signatures. */
function seededBytes(n: number, ...parts: number[]): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 4) {
    const h = hash32(...parts, i);
    for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (h >>> (8 * j)) & 0xff;
  }
  return out;
}

/** A base58 text of `n` seeded bytes; the first byte is kept non-zero so the text has its full length. */
export function seededBase58(n: number, ...parts: number[]): string {
  const bytes = seededBytes(n, ...parts);
  bytes[0] = bytes[0]! | 0x80;
  return bs58.encode(bytes);
}
