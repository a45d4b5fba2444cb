import type { HeldToken, QuotePricing } from "../market/quote-pricing.ts";
import type { TokenPriceProvider } from "../market/types.ts";
import type { Big } from "../money.ts";
import { type TokenTickPrice, tickPrice, tickPriceFromSol } from "./tick-price.ts";

// The prices the monitor decides on: no decision on a stale number. Rules compare a
// token's price in SOL with prices in SOL (entry, peak, levels). The price source answers in USD,
// so the price in SOL is USD ÷ SOL/USD, which is only as good as SOL/USD: with a stale SOL/USD a
// SOL move shows up as a move of every token (SOL −30 % read through the old SOL/USD is every
// token −30 %: false stop-outs). While SOL/USD is stale a token's price in SOL comes from a source
// denominated in SOL, a sell quote (token → SOL), or the position waits and says why
// (PriceWaits, the position's `waitingReason`, and the log). So does a position whose token price
// is older than two monitor ticks (a price source's cache kept it).

/** The monitor's reading of SOL/USD: the value and whether it is stale (SPEC "SOL price"). */
interface SolUsdReading {
  price: Big;
  stale: boolean;
}

export interface MonitorPriceSources {
  tokenPrices: TokenPriceProvider;
  solUsd(): Promise<SolUsdReading>;
  quotePricing?: Pick<QuotePricing, "fillMissing" | "pricesInSol"> | null;
  /** A token price observed longer ago than this is not decided on (two monitor ticks). */
  maxPriceAgeMs?: number;
  now?: () => number;
}

export type MintPrice = { kind: "priced"; price: TokenTickPrice } | { kind: "waiting"; reason: string };

const WAIT_STALE_SOL_USD = "SOL/USD is stale and no price in SOL (sell quote) is available for this token";
export const WAIT_UNPRICED = "no price is available for this token";
const WAIT_OLD_PRICE = "the token's price is older than two monitor ticks";

/**
 * Every held mint's price in SOL, or why it waits. Throws when the prices cannot be had at all
 * (the tick decides nothing; the next one retries).
 */
export async function priceHeldTokens(
  d: MonitorPriceSources,
  held: readonly HeldToken[],
): Promise<Map<string, MintPrice>> {
  const mints = [...new Set(held.map((h) => h.tokenAddress))];
  const out = new Map<string, MintPrice>();
  if (mints.length === 0) return out;
  const [usd, sol] = await Promise.all([d.tokenPrices.getPrices(mints), d.solUsd()]);
  if (sol.stale || sol.price.lte(0)) {
    const inSol = d.quotePricing ? await d.quotePricing.pricesInSol(held) : new Map<string, Big>();
    for (const mint of mints) {
      const priceSol = inSol.get(mint);
      // The stored USD price is informational: the SOL price times the last SOL/USD known.
      out.set(
        mint,
        priceSol
          ? { kind: "priced", price: tickPriceFromSol(priceSol, sol.price) }
          : { kind: "waiting", reason: WAIT_STALE_SOL_USD },
      );
    }
    return out;
  }
  const prices =
    d.quotePricing && usd.size < mints.length ? await d.quotePricing.fillMissing(usd, held, sol.price) : usd;
  const oldest = d.maxPriceAgeMs !== undefined && d.now ? d.now() - d.maxPriceAgeMs : null;
  for (const mint of mints) {
    const p: { usd: string; observedAtMs?: number } | undefined = prices.get(mint);
    // Unknown is never zero: the position waits for a price; an old one is not decided on either.
    if (!p) out.set(mint, { kind: "waiting", reason: WAIT_UNPRICED });
    else if (oldest !== null && p.observedAtMs !== undefined && p.observedAtMs < oldest)
      out.set(mint, { kind: "waiting", reason: WAIT_OLD_PRICE });
    else out.set(mint, { kind: "priced", price: tickPrice(p.usd, sol.price) });
  }
  return out;
}

/**
 * Why the monitor is not acting on a position right now, by position id; gone once it is priced
 * again. Kept in memory: a wait is a fact of the last tick, and the next tick (after a restart
 * too) finds it again.
 */
export class PriceWaits {
  private readonly waits = new Map<string, { reason: string; since: number }>();

  set(positionId: string, reason: string, now: number): boolean {
    const prev = this.waits.get(positionId);
    if (prev?.reason === reason) return false;
    this.waits.set(positionId, { reason, since: prev?.since ?? now });
    return true;
  }

  clear(positionId: string): void {
    this.waits.delete(positionId);
  }

  /** Drops positions the tick no longer holds (closed meanwhile). */
  retain(positionIds: ReadonlySet<string>): void {
    for (const id of this.waits.keys()) if (!positionIds.has(id)) this.waits.delete(id);
  }

  get(positionId: string): { reason: string; since: number } | null {
    return this.waits.get(positionId) ?? null;
  }
}
