import { whaleQueryBounds } from "../birdeye.ts";
import type { WhaleTrade, WhaleTradeQuery, WhaleTradesProvider } from "../types.ts";
import { DEMO_ROUTE_LABEL, type DemoMarketState } from "./providers.ts";
import { seededBase58, uniform } from "./seeded.ts";
import { DEMO_TOKEN_BY_ADDRESS } from "./tokens.ts";

// Synthetic whale buys for the public whale endpoints. Time is cut into 2-minute
// buckets; whether a bucket holds a buy of a token, when in the bucket, how big (log-uniform from
// 2 000 to 400 000 USD) and by which of a few whale wallets are pure functions of (token, bucket),
// so the feed is the same on every read and new trades appear as the clock moves. Prices are the
// walk's price at the trade's time.

const WHALE_BUCKET_MS = 120_000;
const WHALE_WINDOW_MS = 6 * 3_600_000;
const BUY_PROBABILITY = 0.2;
const MIN_USD = 2_000;
const MAX_USD = 400_000;
const WHALE_WALLETS = 12;

export class DemoWhales implements WhaleTradesProvider {
  readonly configured = true;

  constructor(private readonly m: DemoMarketState) {}

  assertConfigured(): void {}

  async getTrades(tokenAddress: string, query: WhaleTradeQuery = {}): Promise<WhaleTrade[]> {
    const { limit, minVolume } = whaleQueryBounds(query);
    const token = DEMO_TOKEN_BY_ADDRESS.get(tokenAddress);
    if (!token) return []; // the demo market knows only its own tokens
    const i = this.m.series(tokenAddress);
    const now = this.m.clock.now();
    const trades: WhaleTrade[] = [];
    const newest = Math.floor(now / WHALE_BUCKET_MS);
    const oldest = Math.floor((now - WHALE_WINDOW_MS) / WHALE_BUCKET_MS);
    for (let b = newest; b >= oldest && trades.length < limit; b--) {
      if (uniform(31, i, b) >= BUY_PROBABILITY) continue;
      const at = Math.floor((b * WHALE_BUCKET_MS + uniform(32, i, b) * WHALE_BUCKET_MS) / 1000) * 1000;
      if (at > now) continue;
      const volumeUsd = Math.round(Math.exp(Math.log(MIN_USD) + uniform(33, i, b) * Math.log(MAX_USD / MIN_USD)));
      if (volumeUsd < minVolume) continue;
      const priceUsd = this.m.priceUsd(tokenAddress, at);
      trades.push({
        txHash: seededBase58(64, 34, i, b),
        blockTime: new Date(at).toISOString(),
        tokenAddress,
        side: "buy",
        volumeUsd,
        owner: seededBase58(32, 35, Math.floor(uniform(36, i, b) * WHALE_WALLETS)),
        source: DEMO_ROUTE_LABEL,
        tokenAmount: Number((volumeUsd / priceUsd).toPrecision(10)),
        priceUsd: Number(priceUsd.toPrecision(10)),
      });
    }
    return trades;
  }
}
