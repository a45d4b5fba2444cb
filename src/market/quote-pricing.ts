import type { Logger } from "../logger.ts";
import { type Big, decStr, fromAtomic, SOL_DECIMALS, SOL_MINT, toAtomic } from "../money.ts";
import type { QuoteProvider, TokenPrice } from "./types.ts";

// Prices from the swap aggregator for tokens the price source omits. Jupiter Price API v3 leaves out mints it cannot
// price reliably — a brand-new token above all — and a position the monitor cannot price has no
// stop-loss or take-profit. Such a mint is priced from an ExactIn SELL quote (token → SOL) of the
// largest amount an open position holds: what selling would actually bring, price impact
// included, so a thin pool is not valued at a price nobody could sell at. A quote that fails
// leaves the mint unpriced (unknown, never zero), as before.

/** What the pricer needs of an open position. */
export interface HeldToken {
  tokenAddress: string;
  /** Tokens held (decimal string, as positions store it). */
  remainingAmount: string;
  tokenDecimals: number;
}

export interface QuotePricingDeps {
  quotes: Pick<QuoteProvider, "configured" | "quote">;
  logger: Logger;
  /** Mints quoted per call at most (each quote is one paced aggregator request). Default 20. */
  maxMints?: number;
  /** Slippage sent with the quote; it does not change the quoted amount. Default 100 bps. */
  slippageBps?: number;
}

export class QuotePricing {
  private readonly log: Logger;

  constructor(private readonly d: QuotePricingDeps) {
    this.log = d.logger.child({ component: "market" });
  }

  /**
   * `prices` plus a quote-derived USD price for every held mint it lacks (a new map; the given one
   * may be a shared cache entry). `solUsd` converts the quote's SOL into the provider's unit.
   */
  async fillMissing<P extends { usd: string }>(
    prices: ReadonlyMap<string, P>,
    held: readonly HeldToken[],
    solUsd: Big,
  ): Promise<Map<string, P | TokenPrice>> {
    const out = new Map<string, P | TokenPrice>(prices);
    if (!this.d.quotes.configured || solUsd.lte(0)) return out;
    const inSol = await this.pricesInSol(held.filter((h) => !prices.has(h.tokenAddress)));
    for (const [mint, priceSol] of inSol) {
      const decimals = held.find((h) => h.tokenAddress === mint)?.tokenDecimals ?? null;
      out.set(mint, {
        mint,
        usd: decStr(priceSol.times(solUsd), 12),
        decimals,
        priceChange24h: null,
        liquidityUsd: null,
      });
    }
    return out;
  }

  /**
   * SOL per whole token of every held mint, from a sell quote of the largest holding: a price in
   * SOL that needs no SOL/USD (the monitor's source while SOL/USD is stale). A mint whose quote
   * fails is absent.
   */
  async pricesInSol(held: readonly HeldToken[]): Promise<Map<string, Big>> {
    const out = new Map<string, Big>();
    if (!this.d.quotes.configured) return out;
    // The largest holding per mint: one quote per mint.
    const wanted = new Map<string, { atomic: bigint; decimals: number }>();
    for (const h of held) {
      const atomic = toAtomic(h.remainingAmount, h.tokenDecimals);
      const seen = wanted.get(h.tokenAddress);
      if (atomic > 0n && (!seen || atomic > seen.atomic))
        wanted.set(h.tokenAddress, { atomic, decimals: h.tokenDecimals });
    }
    if (wanted.size === 0) return out;
    const max = this.d.maxMints ?? 20;
    const mints = [...wanted.keys()].slice(0, max);
    if (wanted.size > max)
      this.log.warn("more unpriced tokens than quotes per tick; the rest wait", { unpriced: wanted.size, quoted: max });
    await Promise.all(
      mints.map(async (mint) => {
        const { atomic, decimals } = wanted.get(mint)!;
        const priceSol = await this.sellPriceSol(mint, atomic, decimals);
        if (priceSol) out.set(mint, priceSol);
      }),
    );
    return out;
  }

  /** SOL per whole token that selling `atomic` units would bring; null when no quote. */
  private async sellPriceSol(mint: string, atomic: bigint, decimals: number): Promise<Big | null> {
    try {
      const q = await this.d.quotes.quote({
        inputMint: mint,
        outputMint: SOL_MINT,
        amount: atomic.toString(),
        slippageBps: this.d.slippageBps ?? 100,
      });
      const lamports = BigInt(q.outAmount);
      if (lamports <= 0n) return null;
      const price = fromAtomic(lamports, SOL_DECIMALS).div(fromAtomic(atomic, decimals));
      this.log.debug("token priced from a sell quote", {
        tokenAddress: mint,
        amount: atomic.toString(),
        priceSol: decStr(price),
      });
      return price;
    } catch (err) {
      this.log.warn("token price unavailable: no price source entry and no quote", {
        tokenAddress: mint,
        reason: err instanceof Error ? err.message : String(err),
      });
      return null;
    }
  }
}
