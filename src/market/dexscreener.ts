import type { Clock } from "../clock.ts";
import { BatchCache } from "./batch-cache.ts";
import { num, obj, positiveDecimal, str } from "./fields.ts";
import { type HttpClient, unexpectedResponse } from "./http-client.ts";
import type { MarketDataProvider, TokenMarketData } from "./types.ts";

// DexScreener tokens v1 (PRODUCT.md §5, marketData): GET /tokens/v1/solana/{a,b,...} with at most
// 30 addresses answers an array of pairs {chainId, dexId, pairAddress, baseToken{address, name,
// symbol}, quoteToken{...}, priceNative, priceUsd, liquidity{usd, base, quote}, fdv, marketCap,
// volume{h24}, ...} where the token is either side. Any field may be null or absent.
// Per token we keep its most liquid Solana pair, preferring pairs where it is the base token
// (only there are priceUsd and marketCap the token's own).

const DEXSCREENER_BATCH = 30;

export interface DexScreenerOptions {
  /** Default 15 s: eligibility checks of one signal for many agents share one lookup. */
  cacheTtlMs?: number;
  batchSize?: number;
}

export class DexScreenerClient implements MarketDataProvider {
  readonly configured = true;
  private readonly cache: BatchCache<TokenMarketData>;
  private readonly batchSize: number;

  constructor(
    private readonly http: HttpClient,
    clock: Clock,
    opts: DexScreenerOptions = {},
  ) {
    this.cache = new BatchCache(opts.cacheTtlMs ?? 15_000, clock);
    this.batchSize = Math.min(DEXSCREENER_BATCH, Math.max(1, opts.batchSize ?? DEXSCREENER_BATCH));
  }

  getTokens(mints: readonly string[]): Promise<Map<string, TokenMarketData>> {
    const wanted = mints.filter((m) => typeof m === "string" && m !== "");
    if (wanted.length === 0) return Promise.resolve(new Map());
    return this.cache.getMany(wanted, async (missing) => {
      const batches: string[][] = [];
      for (let i = 0; i < missing.length; i += this.batchSize) batches.push(missing.slice(i, i + this.batchSize));
      const results = await Promise.all(batches.map((b) => this.fetchBatch(b)));
      const out = new Map<string, TokenMarketData>();
      for (const r of results) for (const [k, v] of r) out.set(k, v);
      return out;
    });
  }

  private async fetchBatch(mints: string[]): Promise<Map<string, TokenMarketData>> {
    const body = await this.http.getJson(`/tokens/v1/solana/${mints.map(encodeURIComponent).join(",")}`);
    if (!Array.isArray(body)) throw unexpectedResponse(this.http.service, "expected an array of pairs");
    const best = new Map<string, { data: TokenMarketData; base: boolean; liquidity: number }>();
    for (const raw of body) {
      const pair = obj(raw);
      if (!pair || str(pair.chainId) !== "solana") continue;
      const baseToken = obj(pair.baseToken);
      const quoteToken = obj(pair.quoteToken);
      const liquidity = num(obj(pair.liquidity)?.usd);
      for (const mint of mints) {
        const isBase = str(baseToken?.address) === mint;
        const isQuote = !isBase && str(quoteToken?.address) === mint;
        if (!isBase && !isQuote) continue;
        const candidate = {
          base: isBase,
          liquidity: liquidity ?? -1,
          data: toMarketData(mint, pair, isBase, liquidity),
        };
        const current = best.get(mint);
        if (!current || better(candidate, current)) best.set(mint, candidate);
      }
    }
    return new Map([...best].map(([k, v]) => [k, v.data]));
  }
}

const better = (a: { base: boolean; liquidity: number }, b: { base: boolean; liquidity: number }) =>
  a.base !== b.base ? a.base : a.liquidity > b.liquidity;

function toMarketData(
  mint: string,
  pair: Record<string, unknown>,
  isBase: boolean,
  liquidityUsd: number | null,
): TokenMarketData {
  const self = obj(isBase ? pair.baseToken : pair.quoteToken);
  const other = obj(isBase ? pair.quoteToken : pair.baseToken);
  const fdv = isBase ? num(pair.fdv) : null;
  const marketCap = isBase ? num(pair.marketCap) : null;
  return {
    mint,
    symbol: str(self?.symbol),
    name: str(self?.name),
    // The pair's prices are the base token's: meaningless for a token on the quote side.
    priceUsd: isBase ? positiveDecimal(pair.priceUsd) : null,
    priceNative: isBase ? positiveDecimal(pair.priceNative) : null,
    marketCapUsd: marketCap ?? fdv,
    fdvUsd: fdv,
    liquidityUsd,
    volume24hUsd: num(obj(pair.volume)?.h24),
    pairAddress: str(pair.pairAddress),
    dexId: str(pair.dexId),
    quoteSymbol: str(other?.symbol),
  };
}
