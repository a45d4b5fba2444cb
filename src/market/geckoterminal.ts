import { SOL_MINT } from "../money.ts";
import { obj, positiveDecimal, str } from "./fields.ts";
import { type HttpClient, unexpectedResponse } from "./http-client.ts";
import type { RateLimit } from "./rate-limiter.ts";

// GeckoTerminal public API (HISTORY_DATA_URL, keyless; https://apiguide.geckoterminal.com):
//   GET /networks/solana/tokens/{address}/pools
//     → {data: [{id: "solana_<pool>", type: "pool", attributes: {address, name, reserve_in_usd, ...},
//        relationships: {base_token: {data: {id: "solana_<mint>"}}, quote_token: {data: {id}}, dex}}]}
//   GET /networks/solana/pools/{pool}/ohlcv/minute?aggregate=1&before_timestamp&limit(≤1000)&currency&token
//     → {data: {attributes: {ohlcv_list: [[unix seconds, open, high, low, close, volume], ...]}}, meta}
//        newest first; minutes without swaps are absent. `currency=token` prices in the pool's other
//        token, so against a SOL pool the prices are SOL per token, as the engine keeps them.
// Public limit: 30 calls a minute (the client's limiter keeps under it).

export const GECKOTERMINAL_LIMIT: RateLimit = { intervalMs: 2_000 };
export const OHLCV_PAGE = 1000;

export interface HistoryBar {
  /** Bar start, epoch ms. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

export interface HistoryPool {
  address: string;
  /** Which side of the pool the token is: the `token` parameter of the OHLCV call. */
  side: "base" | "quote";
}

const idAddress = (v: unknown): string | null => {
  const id = str(obj(obj(v)?.data)?.id);
  return id?.startsWith("solana_") ? id.slice("solana_".length) : null;
};

export class GeckoTerminalClient {
  constructor(private readonly http: HttpClient) {}

  /** The token's first listed pool against SOL (GeckoTerminal lists the most liquid first), or null. */
  async solPool(tokenAddress: string): Promise<HistoryPool | null> {
    const body = obj(await this.http.getJson(`/networks/solana/tokens/${encodeURIComponent(tokenAddress)}/pools`));
    if (!body || !Array.isArray(body.data)) throw unexpectedResponse(this.http.service, "expected {data: [pools]}");
    for (const raw of body.data) {
      const pool = obj(raw);
      const address = str(obj(pool?.attributes)?.address);
      const base = idAddress(obj(pool?.relationships)?.base_token);
      const quote = idAddress(obj(pool?.relationships)?.quote_token);
      if (!address) continue;
      if (base === tokenAddress && quote === SOL_MINT) return { address, side: "base" };
      if (quote === tokenAddress && base === SOL_MINT) return { address, side: "quote" };
    }
    return null;
  }

  /** One page of 1-minute bars before `beforeMs` (exclusive), oldest first, prices in SOL. */
  async minuteBars(pool: HistoryPool, beforeMs: number, limit = OHLCV_PAGE): Promise<HistoryBar[]> {
    const body = obj(
      await this.http.getJson(`/networks/solana/pools/${encodeURIComponent(pool.address)}/ohlcv/minute`, {
        aggregate: 1,
        before_timestamp: Math.floor(beforeMs / 1000),
        limit,
        currency: "token",
        token: pool.side,
      }),
    );
    const list = obj(obj(body?.data)?.attributes)?.ohlcv_list;
    if (!Array.isArray(list)) throw unexpectedResponse(this.http.service, "expected data.attributes.ohlcv_list");
    const bars: HistoryBar[] = [];
    for (const row of list) {
      if (!Array.isArray(row) || typeof row[0] !== "number") continue;
      const [open, high, low, close] = [row[1], row[2], row[3], row[4]].map((v) => positiveDecimal(v));
      if (!open || !high || !low || !close) continue;
      const time = row[0] * 1000;
      if (time >= beforeMs) continue;
      bars.push({ time, open, high, low, close });
    }
    return bars.sort((a, b) => a.time - b.time);
  }
}
