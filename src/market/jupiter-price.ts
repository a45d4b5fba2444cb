import type { Clock } from "../clock.ts";
import { SOL_DECIMALS, SOL_MINT } from "../money.ts";
import { BatchCache } from "./batch-cache.ts";
import { int, isObject, num, obj, positiveDecimal } from "./fields.ts";
import { type HttpClient, unexpectedResponse } from "./http-client.ts";
import type { TokenDecimalsProvider, TokenPrice, TokenPriceProvider } from "./types.ts";

// Jupiter Price API v3 (PRODUCT.md §5): GET /price/v3?ids=a,b,... (at most 50 ids) answers an
// object keyed by mint: {usdPrice, decimals, blockId, priceChange24h, liquidity, createdAt}. A
// mint Jupiter cannot price is simply absent (or null); we report it as unknown, never as 0.
// Used for token prices (swapAggregator) and as the SOL/USD source solPriceFeed.

const JUPITER_PRICE_BATCH = 50;

export interface JupiterPriceOptions {
  /** How long a price (or a known miss) is reused; default 5 s (the monitor ticks every 10 s). */
  cacheTtlMs?: number;
  batchSize?: number;
}

export class JupiterPriceClient implements TokenPriceProvider, TokenDecimalsProvider {
  readonly configured = true;
  private readonly cache: BatchCache<TokenPrice>;
  private readonly batchSize: number;
  /** Decimals never change for a mint: kept for the life of the process. */
  private readonly knownDecimals = new Map<string, number>([[SOL_MINT, SOL_DECIMALS]]);

  constructor(
    private readonly http: HttpClient,
    private readonly clock: Clock,
    opts: JupiterPriceOptions = {},
  ) {
    this.cache = new BatchCache(opts.cacheTtlMs ?? 5_000, clock);
    this.batchSize = Math.min(JUPITER_PRICE_BATCH, Math.max(1, opts.batchSize ?? JUPITER_PRICE_BATCH));
  }

  getPrices(mints: readonly string[]): Promise<Map<string, TokenPrice>> {
    const wanted = mints.filter((m) => typeof m === "string" && m !== "");
    if (wanted.length === 0) return Promise.resolve(new Map());
    return this.cache.getMany(wanted, (missing) => this.fetchPrices(missing));
  }

  /** Uncached lookup, batched; used by the SOL/USD poll. */
  async fetchPrices(mints: readonly string[], signal?: AbortSignal): Promise<Map<string, TokenPrice>> {
    const unique = [...new Set(mints)];
    const batches: string[][] = [];
    for (let i = 0; i < unique.length; i += this.batchSize) batches.push(unique.slice(i, i + this.batchSize));
    const results = await Promise.all(batches.map((b) => this.fetchBatch(b, signal)));
    const out = new Map<string, TokenPrice>();
    for (const r of results) for (const [k, v] of r) out.set(k, v);
    return out;
  }

  async getDecimals(mints: readonly string[]): Promise<Map<string, number>> {
    const missing = [...new Set(mints)].filter((m) => !this.knownDecimals.has(m));
    if (missing.length > 0) await this.getPrices(missing);
    const out = new Map<string, number>();
    for (const m of mints) {
      const d = this.knownDecimals.get(m);
      if (d !== undefined) out.set(m, d);
    }
    return out;
  }

  private async fetchBatch(ids: string[], signal?: AbortSignal): Promise<Map<string, TokenPrice>> {
    const body = await this.http.getJson("/price/v3", { ids: ids.join(",") }, signal);
    if (!isObject(body)) throw unexpectedResponse(this.http.service, "expected an object keyed by mint");
    const out = new Map<string, TokenPrice>();
    for (const mint of ids) {
      const entry = obj(body[mint]);
      if (!entry) continue;
      const decimals = int(entry.decimals);
      if (decimals !== null && decimals >= 0 && decimals <= 255) this.knownDecimals.set(mint, decimals);
      const usd = positiveDecimal(entry.usdPrice);
      if (usd === null) continue;
      out.set(mint, {
        mint,
        usd,
        decimals: decimals !== null && decimals >= 0 ? decimals : null,
        priceChange24h: num(entry.priceChange24h),
        liquidityUsd: num(entry.liquidity),
        observedAtMs: this.clock.now(),
      });
    }
    return out;
  }
}
