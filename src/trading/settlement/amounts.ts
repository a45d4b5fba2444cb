import type { PositionRecord } from "../../db/repositories/positions.ts";
import { Big, decStr, fromAtomic, SOL_DECIMALS, SOL_MINT } from "../../money.ts";
import type { SwapFill } from "../executor.ts";

// A fill's amounts as the records state them (PRODUCT.md §4): pure arithmetic shared by the
// simulation and the live settlement.

export const lamportsToSol = (l: bigint): Big => fromAtomic(l, SOL_DECIMALS);

export const safeDiv = (a: Big, b: Big): Big => (b.eq(0) ? new Big(0) : a.div(b));

/** A buy's amounts: SOL swapped, tokens received, and the cost (SOL swapped plus fees). */
export function buyAmounts(
  fill: Pick<SwapFill, "inputAtomic" | "outputAtomic" | "feesSol">,
  tokenDecimals: number,
): { solSwapped: Big; tokens: Big; cost: Big } {
  const solSwapped = lamportsToSol(fill.inputAtomic);
  return { solSwapped, tokens: fromAtomic(fill.outputAtomic, tokenDecimals), cost: solSwapped.plus(fill.feesSol) };
}

/** A sale's amounts: tokens sold, SOL received, and the price per token (the last known price when nothing was sold). */
export function saleAmounts(
  p: PositionRecord,
  fill: Pick<SwapFill, "inputAtomic" | "outputAtomic">,
): { sold: Big; proceeds: Big; salePriceSol: Big } {
  const sold = fromAtomic(fill.inputAtomic, p.tokenDecimals);
  const proceeds = lamportsToSol(fill.outputAtomic);
  return { sold, proceeds, salePriceSol: sold.gt(0) ? proceeds.div(sold) : new Big(p.lastPriceSol ?? p.entryPriceSol) };
}

/** Both sides of a swap as agent_transactions records them (SOL on one side, the token on the other). */
export interface SwapSides {
  type: "BUY" | "SELL";
  valueUsd: Big;
  tokenMint: string;
  inputMint: string;
  inputSymbol: string;
  inputAmount: Big;
  inputPriceUsd: Big;
  outputMint: string;
  outputSymbol: string;
  outputAmount: Big;
  outputPriceUsd: Big;
}

export interface SwapSideInput {
  tokenMint: string;
  tokenSymbol: string;
  /** SOL paid (buy) or received (sell). */
  sol: Big;
  tokens: Big;
  tokenPriceUsd: Big;
  solUsd: Big;
  valueUsd: Big;
}

/** SOL in, token out. */
export function buySides(a: SwapSideInput): SwapSides {
  return {
    type: "BUY",
    valueUsd: a.valueUsd,
    tokenMint: a.tokenMint,
    inputMint: SOL_MINT,
    inputSymbol: "SOL",
    inputAmount: a.sol,
    inputPriceUsd: a.solUsd,
    outputMint: a.tokenMint,
    outputSymbol: a.tokenSymbol,
    outputAmount: a.tokens,
    outputPriceUsd: a.tokenPriceUsd,
  };
}

/** Token in, SOL out. */
export function sellSides(a: SwapSideInput): SwapSides {
  return {
    type: "SELL",
    valueUsd: a.valueUsd,
    tokenMint: a.tokenMint,
    inputMint: a.tokenMint,
    inputSymbol: a.tokenSymbol,
    inputAmount: a.tokens,
    inputPriceUsd: a.tokenPriceUsd,
    outputMint: SOL_MINT,
    outputSymbol: "SOL",
    outputAmount: a.sol,
    outputPriceUsd: a.solUsd,
  };
}

/** A buy's or a sale's two sides, by direction (pending and orphaned live swaps are either). */
export const swapSides = (buy: boolean, a: SwapSideInput): SwapSides => (buy ? buySides(a) : sellSides(a));

/** The fill's price impact as agent_transactions stores it (percent). */
export const priceImpactPercent = (fill: Pick<SwapFill, "priceImpactPct">): string =>
  decStr(new Big(fill.priceImpactPct || "0").times(100), 6);
