import type { Clock } from "../clock.ts";

// A short per-key cache in front of batch lookups (token prices, market data). Concurrent callers
// asking for the same key share one in-flight request; a known miss is cached like a hit, so an
// unpriced mint is not asked for again on every monitor tick. Failures are not cached.

interface Entry<V> {
  /** Epoch ms on the service clock; Infinity while the lookup is in flight. */
  expiresAt: number;
  value: Promise<V | undefined>;
}

export class BatchCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
    private readonly maxEntries = 10_000,
  ) {}

  /** Values for `keys` (absent when the loader had none), loading only what is not cached. */
  async getMany(
    keys: readonly string[],
    load: (missing: string[]) => Promise<Map<string, V>>,
  ): Promise<Map<string, V>> {
    const wanted = [...new Set(keys)];
    const now = this.clock.now();
    const promises = new Map<string, Promise<V | undefined>>();
    const missing: string[] = [];
    for (const k of wanted) {
      const e = this.entries.get(k);
      if (e && e.expiresAt > now) promises.set(k, e.value);
      else missing.push(k);
    }
    if (missing.length > 0) {
      this.sweep(now);
      const pending = load(missing);
      const entries = new Map<string, Entry<V>>();
      for (const k of missing) {
        const entry: Entry<V> = { expiresAt: Number.POSITIVE_INFINITY, value: pending.then((m) => m.get(k)) };
        entry.value.catch(() => {}); // awaited below by whoever asked; never an unhandled rejection
        entries.set(k, entry);
        this.entries.set(k, entry);
        promises.set(k, entry.value);
      }
      pending.then(
        () => {
          const at = this.clock.now() + this.ttlMs;
          for (const e of entries.values()) e.expiresAt = at;
        },
        () => {
          for (const [k, e] of entries) if (this.entries.get(k) === e) this.entries.delete(k);
        },
      );
    }
    const values = await Promise.all(wanted.map((k) => promises.get(k)));
    const out = new Map<string, V>();
    wanted.forEach((k, i) => {
      const v = values[i];
      if (v !== undefined) out.set(k, v);
    });
    return out;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private sweep(now: number): void {
    if (this.entries.size < this.maxEntries) return;
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    // Still full of live entries: drop the oldest inserted (Map keeps insertion order).
    for (const k of this.entries.keys()) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(k);
    }
  }
}
