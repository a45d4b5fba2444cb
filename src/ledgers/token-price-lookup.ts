import type { SqliteHandle } from "../db/client.ts";
import { lastOpenPositionPriceSol } from "../db/repositories/position-prices.ts";
import { Big, SOL_MINT } from "../money.ts";

// Where GET /agent-balances gets `priceSol` (SPEC "Agent balance": current price in SOL, list
// responses only). A small interface so the market adapters (src/market/) can plug in a live
// token-price source later; until then the service uses the last price the position monitor
// stored. A mint without a known price is simply absent from the answer and the list shows
// `priceSol: null` (docs/decisions.md "Agents and ledgers"). SOL itself is always 1.

export interface TokenPriceLookup {
  /** Prices in SOL per whole token for the mints it can price; unknown mints are absent. */
  pricesInSol(mints: readonly string[]): Promise<Map<string, number>>;
}

/** Last price seen by the position monitor on any open position of the token. */
export class StoredPositionPriceLookup implements TokenPriceLookup {
  constructor(private readonly h: SqliteHandle) {}

  async pricesInSol(mints: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const mint of new Set(mints)) {
      if (mint === SOL_MINT) continue;
      const p = lastOpenPositionPriceSol(this.h, mint);
      if (p !== null && p !== undefined) out.set(mint, Number(p));
    }
    return out;
  }
}

/** The parts of the market services (src/market) this lookup uses: USD token prices and SOL/USD. */
export interface UsdPriceSources {
  tokenPrices: {
    readonly configured: boolean;
    getPrices(mints: readonly string[]): Promise<Map<string, { usd: string }>>;
  };
  solPrice: {
    readonly configured: boolean;
    current(): { price: string } | null;
    fetchCurrent(): Promise<{ price: string }>;
  };
}

/**
 * Token price in SOL = token USD price / SOL USD price, from the market adapters; mints they
 * cannot price (or every mint, when a source is not configured) fall back to `fallback`.
 */
export class MarketTokenPriceLookup implements TokenPriceLookup {
  constructor(
    private readonly market: UsdPriceSources,
    private readonly fallback: TokenPriceLookup,
  ) {}

  async pricesInSol(mints: readonly string[]): Promise<Map<string, number>> {
    const wanted = [...new Set(mints)].filter((m) => m !== SOL_MINT);
    if (wanted.length === 0) return new Map();
    const out = new Map<string, number>();
    if (this.market.tokenPrices.configured && this.market.solPrice.configured) {
      const sol = this.market.solPrice.current() ?? (await this.market.solPrice.fetchCurrent());
      const solUsd = new Big(sol.price);
      if (solUsd.gt(0)) {
        const usd = await this.market.tokenPrices.getPrices(wanted);
        for (const [mint, p] of usd) out.set(mint, Number(new Big(p.usd).div(solUsd).toPrecision(15)));
      }
    }
    const missing = wanted.filter((m) => !out.has(m));
    if (missing.length > 0) for (const [mint, p] of await this.fallback.pricesInSol(missing)) out.set(mint, p);
    return out;
  }
}
