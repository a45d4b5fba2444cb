import { TradingError } from "../../errors.ts";
import type { Quote, TokenPriceProvider } from "../../market/types.ts";
import { Big, SOL_DECIMALS, SOL_MINT } from "../../money.ts";
import { assertPriceFloor, assertPriceImpact } from "../simulation-executor.ts";

// Our own floor (docs/decisions.md "Live safety"). The aggregator's quote and its
// otherAmountThreshold are untrusted input: the least a live swap accepts is computed from OUR
// numbers, the expected output at an independent price (Price API v3, or the price the service
// recorded for the token) less the agent's tolerance:
//
//   expected = BUY:  lamports ÷ 10^9 ÷ priceSol × 10^decimals   (tokens, atomic)
//              SELL: tokens ÷ 10^decimals × priceSol × 10^9      (lamports)
//   floor    = ⌊expected × (10 000 − floorBps) ÷ 10 000⌋
//   floorBps = slippage.defaultBps (entries, DCA, take-profit), maxExitBps ?? maxBps (stop-loss, stale)
//
// Refused before signing: a quote for another amount or another slippage than asked, a quote
// whose outAmount is below the floor (the reason names both prices), and a quote whose price
// impact, the larger of the reported one and ours (expected vs outAmount), is above the cap. The
// inspection then requires the simulated post-state to deliver max(floor, otherAmountThreshold):
// the aggregator's threshold can only make it stricter.

export interface FloorRequest {
  side: "BUY" | "SELL";
  /** Lamports (BUY) or token atomic units (SELL) asked for. */
  amountAtomic: bigint;
  tokenDecimals: number;
  /** The slippage asked of the aggregator (bps): its quote must echo it. */
  slippageBps: number;
  /** How far below the expected output is still accepted (bps). */
  floorBps: number;
  /** Price-impact cap (bps); null: none (an exit that must get out). */
  maxImpactBps: number | null;
  /**
   * A sale's own price floor (atomic units): a take-profit's level less slippage. The quote and
   * the simulated post-state must both reach it, like the floor from the reference price.
   */
  priceFloorAtomic?: bigint;
}

/** SOL per whole token, from a source other than the quote being judged. */
export interface ReferencePrice {
  priceSol: Big;
  source: "price_api" | "recorded";
}

export interface FloorVerdict {
  expectedAtomic: bigint;
  floorAtomic: bigint;
  /** What the simulated post-state must deliver: max(floor, the sale's price floor, the quote's otherAmountThreshold). */
  minOutAtomic: bigint;
}

export const NO_REFERENCE_PRICE_MESSAGE =
  "No independent price for the token (Price API or a recorded market price); a live swap is not sent without one to bound what it accepts";

const LAMPORTS_PER_SOL = new Big(10).pow(SOL_DECIMALS);

/** The token's price in SOL from the Price API (token USD ÷ SOL USD); null when either is unpriced. */
export async function priceApiReference(
  prices: Pick<TokenPriceProvider, "getPrices">,
  mint: string,
): Promise<ReferencePrice | null> {
  const got = await prices.getPrices([mint, SOL_MINT]);
  const token = got.get(mint)?.usd;
  const sol = got.get(SOL_MINT)?.usd;
  if (!token || !sol) return null;
  const priceSol = new Big(token).div(sol);
  return priceSol.gt(0) ? { priceSol, source: "price_api" } : null;
}

/**
 * A price the service recorded, as a fallback reference (SOL per token): a position's
 * last_price_sol, or a market-data USD price divided by `solUsd`. Undefined when absent or not > 0.
 */
export function recordedPriceSol(price: string | null | undefined, solUsd?: Big): Big | undefined {
  if (!price) return undefined;
  const p = solUsd ? (solUsd.gt(0) ? new Big(price).div(solUsd) : new Big(0)) : new Big(price);
  return p.gt(0) ? p : undefined;
}

export function expectedOutputAtomic(
  r: Pick<FloorRequest, "side" | "amountAtomic" | "tokenDecimals">,
  priceSol: Big,
): bigint {
  const amount = new Big(r.amountAtomic.toString());
  const unit = new Big(10).pow(r.tokenDecimals);
  const out =
    r.side === "BUY"
      ? amount.div(LAMPORTS_PER_SOL).div(priceSol).times(unit)
      : amount.div(unit).times(priceSol).times(LAMPORTS_PER_SOL);
  return BigInt(out.round(0, Big.roundDown).toFixed(0));
}

export const floorOf = (expected: bigint, bps: number): bigint =>
  (expected * BigInt(10_000 - Math.min(10_000, Math.max(0, bps)))) / 10_000n;

/** SOL per whole token a quote implies (for the refusal's reason). */
function quotedPriceSol(
  r: Pick<FloorRequest, "side" | "tokenDecimals">,
  inAtomic: bigint,
  outAtomic: bigint,
): Big | null {
  const [lamports, tokens] = r.side === "BUY" ? [inAtomic, outAtomic] : [outAtomic, inAtomic];
  if (tokens <= 0n) return null;
  return new Big(lamports.toString())
    .div(LAMPORTS_PER_SOL)
    .div(new Big(tokens.toString()).div(new Big(10).pow(r.tokenDecimals)));
}

const priceText = (p: Big | null): string => (p ? p.toPrecision(6).replace(/\.?0+$/, "") : "nothing");

/** Judges a quote against our floor; throws TradingError (nothing is signed) or returns the floor. */
export function judgeQuote(
  r: FloorRequest,
  quote: Pick<Quote, "inAmount" | "outAmount" | "otherAmountThreshold" | "slippageBps" | "priceImpactPct">,
  ref: ReferencePrice,
): FloorVerdict {
  if (BigInt(quote.inAmount) !== r.amountAtomic)
    throw new TradingError("The quote is for another amount than the one asked; not signed", {
      asked: r.amountAtomic.toString(),
      quoted: quote.inAmount,
    });
  if (quote.slippageBps !== r.slippageBps)
    throw new TradingError("The quote's slippage differs from the one asked; not signed", {
      asked: r.slippageBps,
      quoted: quote.slippageBps,
    });
  const expectedAtomic = expectedOutputAtomic(r, ref.priceSol);
  const floorAtomic = floorOf(expectedAtomic, r.floorBps);
  const out = BigInt(quote.outAmount);
  assertPriceFloor(out, r.priceFloorAtomic);
  if (expectedAtomic <= 0n || out < floorAtomic) {
    const quoted = quotedPriceSol(r, r.amountAtomic, out);
    const source = ref.source === "price_api" ? "the Price API" : "the recorded market price";
    throw new TradingError(
      `The quote's price of ${priceText(quoted)} SOL per token is worse than ${priceText(ref.priceSol)} SOL per token from ${source} by more than ${r.floorBps} bps; not signed`,
      {
        quotedPriceSol: priceText(quoted),
        referencePriceSol: priceText(ref.priceSol),
        outAmount: quote.outAmount,
        floor: floorAtomic.toString(),
      },
    );
  }
  if (r.maxImpactBps !== null) {
    // A quote reporting no impact proves nothing: our own reading of it counts too.
    const ours =
      out >= expectedAtomic ? new Big(0) : new Big((expectedAtomic - out).toString()).div(expectedAtomic.toString());
    const reported = new Big(quote.priceImpactPct || "0").abs();
    assertPriceImpact((ours.gt(reported) ? ours : reported).toFixed(), r.maxImpactBps);
  }
  let minOutAtomic = BigInt(quote.otherAmountThreshold);
  for (const bound of [floorAtomic, r.priceFloorAtomic ?? 0n]) if (bound > minOutAtomic) minOutAtomic = bound;
  return { expectedAtomic, floorAtomic, minOutAtomic };
}
