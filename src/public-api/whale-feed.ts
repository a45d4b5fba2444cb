import type { Clock } from "../clock.ts";
import type { SqliteHandle } from "../db/client.ts";
import { SignalRepository } from "../db/repositories/signals.ts";
import type { WhaleTrade, WhaleTradesProvider } from "../market/types.ts";

// GET /v1/whale-trades/latest and /v1/whale-trades/:tokenAddress (SPEC "Public API"; PRODUCT.md
// §5 signalGeneration). "Latest" has no token of its own: it watches the tokens the user cares
// about now — their agents' open positions, then the tokens of their signals of the last 24 h —
// at most WATCHED_TOKENS of them, because the provider allows about one request a second. Answers
// are cached briefly per (token, query) for the same reason (docs/decisions.md).

const WATCHED_TOKENS = 5;
export const RECENT_SIGNALS_MS = 24 * 3600_000;
const WHALE_CACHE_MS = 30_000;

export interface WhaleQuery {
  limit: number;
  minVolumeUsd: number;
}

export interface LatestWhaleTrades {
  /** The tokens watched, in the order chosen (open positions first, then recent signals). */
  tokens: string[];
  /** Trades of all those tokens, newest first, at most `limit`. */
  trades: WhaleTrade[];
}

/** Distinct tokens of the user's open positions (newest first), then of their recent signals. */
export function watchedTokens(h: SqliteHandle, userId: string, sinceIso: string, max = WATCHED_TOKENS): string[] {
  return new SignalRepository(h.sqlite).watchedTokens(userId, sinceIso, max);
}

export class WhaleFeed {
  private readonly cache = new Map<string, { at: number; trades: Promise<WhaleTrade[]> }>();

  constructor(
    private readonly whales: WhaleTradesProvider,
    private readonly clock: Clock,
    private readonly ttlMs = WHALE_CACHE_MS,
  ) {}

  /** Throws 503 SERVICE_NOT_CONFIGURED (naming WHALE_DATA_API_KEY) when the source is off. */
  assertConfigured(): void {
    this.whales.assertConfigured();
  }

  forToken(tokenAddress: string, q: WhaleQuery): Promise<WhaleTrade[]> {
    const key = `${tokenAddress}|${q.limit}|${q.minVolumeUsd}`;
    const now = this.clock.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.trades;
    for (const [k, v] of this.cache) if (now - v.at >= this.ttlMs) this.cache.delete(k);
    const trades = this.whales.getTrades(tokenAddress, { limit: q.limit, minVolumeUsd: q.minVolumeUsd });
    this.cache.set(key, { at: now, trades });
    // A failure is not cached: the next request asks again.
    trades.catch(() => {
      if (this.cache.get(key)?.trades === trades) this.cache.delete(key);
    });
    return trades;
  }

  async latest(tokens: string[], q: WhaleQuery): Promise<LatestWhaleTrades> {
    const lists = await Promise.all(tokens.map((t) => this.forToken(t, q)));
    const trades = lists
      .flat()
      .sort((a, b) => (a.blockTime < b.blockTime ? 1 : a.blockTime > b.blockTime ? -1 : 0))
      .slice(0, q.limit);
    return { tokens, trades };
  }
}
