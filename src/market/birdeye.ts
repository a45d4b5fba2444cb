import { ValidationError } from "../errors.ts";
import { int, num, obj, str } from "./fields.ts";
import { type HttpClient, ProviderError, unexpectedResponse } from "./http-client.ts";
import type { WhaleTrade, WhaleTradeQuery, WhaleTradesProvider } from "./types.ts";

// Birdeye "Trades - Token Filtered By Volume (V3)" (PRODUCT.md §5, signalGeneration):
// GET /defi/v3/token/txs-by-volume?token_address&volume_type=usd&min_volume&tx_type=buy
//     &sort_by=block_unix_time&sort_type=desc&offset&limit, headers X-API-KEY and x-chain: solana,
// → {success: true, data: {items: [{tx_hash, block_unix_time, side, volume_usd, owner, source,
//    from{address, symbol, ui_amount, price}, to{...}}], has_next}}. Errors: {success:false, message}.

const DEFAULT_WHALE_MIN_VOLUME_USD = 10_000;
const MAX_WHALE_LIMIT = 500;

/** The whale query's limit and minimum volume with their defaults, or a 400 naming the bad one. */
export function whaleQueryBounds(query: WhaleTradeQuery): { limit: number; minVolume: number } {
  const limit = query.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WHALE_LIMIT)
    throw new ValidationError(`limit must be a whole number from 1 to ${MAX_WHALE_LIMIT}`);
  const minVolume = query.minVolumeUsd ?? DEFAULT_WHALE_MIN_VOLUME_USD;
  if (!Number.isFinite(minVolume) || minVolume < 0)
    throw new ValidationError("minVolumeUsd must be a non-negative number");
  return { limit, minVolume };
}

export class BirdeyeWhaleClient implements WhaleTradesProvider {
  readonly configured = true;

  constructor(private readonly http: HttpClient) {}

  assertConfigured(): void {}

  async getTrades(tokenAddress: string, query: WhaleTradeQuery = {}): Promise<WhaleTrade[]> {
    const { limit, minVolume } = whaleQueryBounds(query);
    const body = await this.http.getJson("/defi/v3/token/txs-by-volume", {
      token_address: tokenAddress,
      volume_type: "usd",
      min_volume: minVolume,
      tx_type: "buy",
      sort_by: "block_unix_time",
      sort_type: "desc",
      offset: 0,
      limit,
    });
    const b = obj(body);
    if (!b) throw unexpectedResponse(this.http.service, "expected an object");
    if (b.success === false) {
      throw new ProviderError(
        this.http.service,
        `${this.http.service} refused the request: ${str(b.message) ?? "no reason given"}`,
        "status",
        200,
      );
    }
    const items = obj(b.data)?.items;
    if (!Array.isArray(items)) throw unexpectedResponse(this.http.service, "data.items is not a list");
    const trades: WhaleTrade[] = [];
    for (const raw of items) {
      const it = obj(raw);
      const txHash = str(it?.tx_hash) ?? str(it?.txHash);
      const time = int(it?.block_unix_time) ?? int(it?.blockUnixTime);
      if (!it || !txHash || time === null) continue;
      // The leg that is the token itself: `to` for a buy, or whichever side carries its address.
      const legs = [obj(it.to), obj(it.from), obj(it.base), obj(it.quote)];
      const leg = legs.find((l) => str(l?.address) === tokenAddress) ?? null;
      const volumeUsd = num(it.volume_usd) ?? num(it.volumeUSD);
      const tokenAmount = num(leg?.ui_amount) ?? num(leg?.uiAmount);
      const price = num(leg?.price) ?? (volumeUsd !== null && tokenAmount ? volumeUsd / tokenAmount : null);
      trades.push({
        txHash,
        blockTime: new Date(time * 1000).toISOString(),
        tokenAddress,
        side: str(it.side) ?? "buy",
        volumeUsd,
        owner: str(it.owner),
        source: str(it.source),
        tokenAmount: tokenAmount !== null ? Math.abs(tokenAmount) : null,
        priceUsd: price,
      });
    }
    return trades;
  }
}
