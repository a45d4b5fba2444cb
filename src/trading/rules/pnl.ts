// Profit and loss of positions (SPEC.md "Position (open)", "Historical swap", close response;
// PRODUCT.md §4). How fees count (docs/decisions.md "Trading rules"):
// - costSol is every SOL that went in: each buy's swapped SOL plus its fees (opening buy and DCA).
// - Every sale counts its NET proceeds: the SOL the swap returned minus that swap's fees.
// - Cost is allocated to tokens in proportion to the tokens bought: a sale of q tokens carries
//   costSol × q / purchaseAmount, and the tokens still held carry costSol × remaining / purchaseAmount
//   (`openCostSol`). So, as long as no DCA buy follows a take-profit sale, realized + closing P/L
//   equals (all net proceeds − costSol) exactly. A DCA buy after a take-profit sale re-averages
//   the cost over all tokens bought; profit already realized is not restated.
// - Unrealized value is the market value of the remaining tokens (no sell fee deducted yet).
// - USD figures are the SOL figures at the SOL/USD price passed in (the current value may use the
//   token's own stored USD price instead, which the SOL/USD price was implied from).
// - This is THE P/L of an open position: every view (GET /agent-positions/:agentId,
//   GET /agents/:id/positions, the agent performance's unrealized P/L) shows positionPnl
//   (issue 12; src/trading/position-view.ts).
// - Percentages are P/L versus costSol (profitLoss.percent, changePercent) and price versus the
//   average entry price (priceChangePercent). Division by a zero cost or price gives 0.

import { Big } from "../../money.ts";
import { big, percentOf } from "./decimal-input.ts";
import type { DecimalInput } from "./types.ts";

export interface PositionCostBasis {
  /** SOL spent in total, fees included. */
  costSol: DecimalInput;
  /** Tokens bought in total (opening buy plus DCA). */
  purchaseAmount: DecimalInput;
  /** Tokens still held. */
  remainingAmount: DecimalInput;
}

/** Cost carried by the tokens still held: costSol × remaining / purchaseAmount. */
export function openCostSol(position: PositionCostBasis): Big {
  const cost = big(position.costSol);
  const bought = big(position.purchaseAmount);
  const remaining = big(position.remainingAmount);
  if (bought.lte(0)) return new Big(0);
  if (remaining.eq(bought)) return cost;
  return cost.times(remaining).div(bought);
}

export interface TakeProfitSaleInput {
  costSol: DecimalInput;
  purchaseAmount: DecimalInput;
  tokensSold: DecimalInput;
  /** SOL the swap returned. */
  proceedsSol: DecimalInput;
  /** Fees charged for the swap. */
  feesSol: DecimalInput;
}

export interface TakeProfitSalePnl {
  netProceedsSol: Big;
  costBasisSol: Big;
  /** Add to the position's realizedProfitSol. */
  realizedProfitSol: Big;
}

/** Profit locked in by one take-profit sale (PRODUCT.md §4: added to realizedProfitSol). */
export function takeProfitSalePnl(input: TakeProfitSaleInput): TakeProfitSalePnl {
  const bought = big(input.purchaseAmount);
  const netProceedsSol = big(input.proceedsSol).minus(big(input.feesSol));
  const costBasisSol = bought.lte(0) ? new Big(0) : big(input.costSol).times(big(input.tokensSold)).div(bought);
  return { netProceedsSol, costBasisSol, realizedProfitSol: netProceedsSol.minus(costBasisSol) };
}

export interface PositionPnlInput extends PositionCostBasis {
  /** Average entry price in SOL. */
  entryPriceSol: DecimalInput;
  realizedProfitSol: DecimalInput;
  currentPriceSol: DecimalInput;
  /** USD per SOL. */
  solUsdPrice: DecimalInput;
  /**
   * The token's USD price when it is known as such (the price the monitor stored); otherwise
   * currentPriceSol × solUsdPrice. Only the `current` USD figures use it.
   */
  currentPriceUsd?: DecimalInput;
}

/** The `current` and `profitLoss` blocks of an open Position. */
export interface PositionPnl {
  currentPriceNative: Big;
  currentPriceUsd: Big;
  /** Value of the remaining tokens. */
  valueNative: Big;
  valueUsd: Big;
  openCostSol: Big;
  unrealizedSol: Big;
  /** realized + unrealized. */
  profitLossNative: Big;
  profitLossUsd: Big;
  /** profitLossNative versus costSol. */
  profitLossPercent: Big;
  /** current price versus the average entry price. */
  priceChangePercent: Big;
}

export function positionPnl(input: PositionPnlInput): PositionPnl {
  const price = big(input.currentPriceSol);
  const solUsd = big(input.solUsdPrice);
  const entry = big(input.entryPriceSol);
  const valueNative = big(input.remainingAmount).times(price);
  const open = openCostSol(input);
  const unrealizedSol = valueNative.minus(open);
  const profitLossNative = big(input.realizedProfitSol).plus(unrealizedSol);
  const priceUsd = input.currentPriceUsd === undefined ? price.times(solUsd) : big(input.currentPriceUsd);
  return {
    currentPriceNative: price,
    currentPriceUsd: priceUsd,
    valueNative,
    valueUsd:
      input.currentPriceUsd === undefined ? valueNative.times(solUsd) : big(input.remainingAmount).times(priceUsd),
    openCostSol: open,
    unrealizedSol,
    profitLossNative,
    profitLossUsd: profitLossNative.times(solUsd),
    profitLossPercent: percentOf(profitLossNative, big(input.costSol)),
    priceChangePercent: percentOf(price.minus(entry), entry),
  };
}

export interface ClosePnlInput extends PositionCostBasis {
  entryPriceSol: DecimalInput;
  realizedProfitSol: DecimalInput;
  /** SOL the closing swap returned for the remaining tokens (0 when nothing remained). */
  proceedsSol: DecimalInput;
  /** Fees charged for the closing swap (0 when there was no swap). */
  feesSol: DecimalInput;
  solUsdPrice: DecimalInput;
}

/** P/L of a close: the close response and the historical swap. */
export interface ClosePnl {
  netProceedsSol: Big;
  openCostSol: Big;
  /** net proceeds + realized take-profit profit − cost of the tokens sold now. */
  profitLossSol: Big;
  profitLossUsd: Big;
  /** profitLossSol versus costSol. */
  changePercent: Big;
  /** proceeds / remaining tokens; null when nothing remained to sell. */
  salePriceSol: Big | null;
  /** salePriceSol versus the average entry price; null with salePriceSol. */
  priceChangePercent: Big | null;
}

export function closePnl(input: ClosePnlInput): ClosePnl {
  const solUsd = big(input.solUsdPrice);
  const remaining = big(input.remainingAmount);
  const entry = big(input.entryPriceSol);
  const netProceedsSol = big(input.proceedsSol).minus(big(input.feesSol));
  const open = openCostSol(input);
  const profitLossSol = netProceedsSol.plus(big(input.realizedProfitSol)).minus(open);
  const salePriceSol = remaining.gt(0) ? big(input.proceedsSol).div(remaining) : null;
  return {
    netProceedsSol,
    openCostSol: open,
    profitLossSol,
    profitLossUsd: profitLossSol.times(solUsd),
    changePercent: percentOf(profitLossSol, big(input.costSol)),
    salePriceSol,
    priceChangePercent: salePriceSol === null ? null : percentOf(salePriceSol.minus(entry), entry),
  };
}
