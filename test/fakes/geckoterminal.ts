import { UNLIMITED } from "../../src/market/rate-limiter.ts";
import { SOL_MINT } from "../../src/money.ts";
import { LocalServer } from "./local-server.ts";

// GeckoTerminal public API (https://apiguide.geckoterminal.com; HISTORY_DATA_URL), on 127.0.0.1:
//   GET /networks/{network}/tokens/{address}/pools
//     → {data: [{id: "solana_<pool>", type: "pool", attributes: {address, name, reserve_in_usd,
//        base_token_price_usd, ...}, relationships: {base_token: {data: {id, type: "token"}},
//        quote_token: {data: {id, type: "token"}}, dex: {data: {id, type: "dex"}}}}]}
//   GET /networks/{network}/pools/{pool}/ohlcv/{timeframe}?aggregate&before_timestamp&limit&currency&token
//     → {data: {id, type: "ohlcv_request_response", attributes: {ohlcv_list: [[ts, o, h, l, c, v]]}},
//        meta: {base: {address, name, symbol}, quote: {...}}}, newest first, limit ≤ 1000 (default 100).
// Bars are kept per pool as SOL per token (what `currency=token` answers for a SOL pool). Unknown
// token: {data: []}; unknown pool: 404 {errors: [{status, title}]}.

export interface FakeGeckoBar {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

export class FakeGeckoTerminal extends LocalServer {
  /** token → pool address (the token is the base, SOL the quote). */
  readonly pools = new Map<string, string>();
  readonly bars = new Map<string, FakeGeckoBar[]>();
  readonly requests: URL[] = [];

  override get url(): string {
    return `${super.url}/api/v2`;
  }

  /**
   * Context options that point the service's history import at this fake without client-side
   * pacing (the real API's 30 requests a minute would make a test wait).
   */
  contextOptions() {
    return { env: { HISTORY_DATA_URL: this.url }, services: { strategyLab: { historyLimit: UNLIMITED } } };
  }

  setHistory(token: string, pool: string, bars: FakeGeckoBar[]): void {
    this.pools.set(token, pool);
    this.bars.set(
      pool,
      [...bars].sort((a, b) => a.time - b.time),
    );
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    this.requests.push(url);
    const parts = url.pathname
      .replace(/^\/api\/v2/, "")
      .split("/")
      .filter(Boolean);
    if (parts[0] === "networks" && parts[2] === "tokens" && parts[4] === "pools") {
      const token = decodeURIComponent(parts[3]!);
      const pool = this.pools.get(token);
      return Response.json({
        data: pool
          ? [
              {
                id: `solana_${pool}`,
                type: "pool",
                attributes: {
                  address: pool,
                  name: "TOKEN / SOL",
                  reserve_in_usd: "250000.5",
                  base_token_price_usd: "0.01",
                },
                relationships: {
                  base_token: { data: { id: `solana_${token}`, type: "token" } },
                  quote_token: { data: { id: `solana_${SOL_MINT}`, type: "token" } },
                  dex: { data: { id: "raydium", type: "dex" } },
                },
              },
            ]
          : [],
      });
    }
    if (parts[0] === "networks" && parts[2] === "pools" && parts[4] === "ohlcv") {
      const pool = decodeURIComponent(parts[3]!);
      const bars = this.bars.get(pool);
      if (!bars) return Response.json({ errors: [{ status: "404", title: "Not Found" }] }, { status: 404 });
      if (parts[5] !== "minute" || (url.searchParams.get("aggregate") ?? "1") !== "1")
        return Response.json({ errors: [{ status: "400", title: "fake serves 1-minute bars only" }] }, { status: 400 });
      const limit = Math.min(1000, Number(url.searchParams.get("limit") ?? 100));
      const before = Number(url.searchParams.get("before_timestamp") ?? Number.MAX_SAFE_INTEGER / 1000) * 1000;
      const page = bars
        .filter((b) => b.time < before)
        .slice(-limit)
        .reverse();
      return Response.json({
        data: {
          id: crypto.randomUUID(),
          type: "ohlcv_request_response",
          attributes: {
            ohlcv_list: page.map((b) => [
              b.time / 1000,
              Number(b.open),
              Number(b.high),
              Number(b.low),
              Number(b.close),
              1234.5,
            ]),
          },
        },
        meta: {
          base: { address: "x", name: "Token", symbol: "TOK" },
          quote: { address: SOL_MINT, name: "Wrapped SOL", symbol: "SOL" },
        },
      });
    }
    return Response.json({ errors: [{ status: "404", title: "Not Found" }] }, { status: 404 });
  }
}
