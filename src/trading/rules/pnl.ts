// Profit and loss of positions (SPEC.md "Position (open)", "Historical swap", close response;
// PRODUCT.md §4; docs/decisions.md "Books that reconcile"). ONE cost basis, average cost:
// - costSol is every SOL that went in, fees included, token-account rent excluded: each buy's
//   swapped SOL plus its fees (opening buy and DCA). It only grows; percentages are measured
//   against it.
// - heldCostSol is the cost carried by the tokens still held. A buy (opening or DCA) adds its
//   swapped SOL plus fees to it; a sale of q of the r tokens held takes heldCostSol × q / r out
//   of it (all of it when q = r), and realizes `proceeds − fees − that cost`.
// - So a closed position's P/L (Σ realized) is exactly Σ SELL(out − fees) − Σ BUY(in + fees),
//   whatever the order of take-profit sales and DCA buys: the cost taken out by the sales sums to
//   the cost put in. Rent is not in it: the BUY that creates the token account records it as
//   rentDepositSol and the SELL after which the account is closed as rentRefundSol; the close's
//   fee is in that SELL's fees, so the P/L is what the wallet gained (docs/decisions/
//   pnl-is-wallet-gain.md), rent still held in an open account being the wallet's.
// - Unrealized value is the market value of the remaining tokens (no sell fee deducted yet).
// - USD figures are the SOL figures at the SOL/USD price passed in (the current value may use the
//   token's own stored USD price instead, which the SOL/USD price was implied from).
// - This is THE P/L of a position: every view (GET /agent-positions/:agentId,
//   GET /agents/:id/positions, the performance's unrealized P/L, the public API), the historical
//   swap, the close response and the backtest come from these functions.
// - Percentages are P/L versus costSol (profitLoss.percent, changePercent) and price versus the
//   average entry price (priceChangePercent). Division by a zero cost or price gives 0.

import { Big } from "../../money.ts";
import { big, percentOf } from "./decimal-input.ts";
import type { DecimalInput } from "./types.ts";

export interface PositionCostBasis {
  /** SOL spent in total, fees included (rent excluded). */
  costSol: DecimalInput;
  /** Cost of the tokens still held. */
  heldCostSol: DecimalInput;
  /** Tokens still held. */
  remainingAmount: DecimalInput;
}

/** Cost carried by the tokens still held. */
export function openCostSol(position: Pick<PositionCostBasis, "heldCostSol">): Big {
  return big(position.heldCostSol);
}

/** Cost of `tokensSold` of the tokens held at average cost: all of it when every token is sold. */
export function costOfTokensSold(
  heldCostSol: DecimalInput,
  remainingAmount: DecimalInput,
  tokensSold: DecimalInput,
): Big {
  const held = big(heldCostSol);
  const remaining = big(remainingAmount);
  const sold = big(tokensSold);
  if (sold.lte(0)) return new Big(0);
  if (remaining.lte(0) || sold.gte(remaining)) return held;
  return held.times(sold).div(remaining);
}

/** Held cost after a buy (opening or DCA): plus the SOL swapped and its fees. */
export function heldCostAfterBuy(heldCostSol: DecimalInput, solSwapped: DecimalInput, feesSol: DecimalInput): Big {
  return big(heldCostSol).plus(big(solSwapped)).plus(big(feesSol));
}

export interface SaleInput {
  heldCostSol: DecimalInput;
  /** Tokens held before the sale. */
  remainingAmount: DecimalInput;
  tokensSold: DecimalInput;
  /** SOL the swap returned. */
  proceedsSol: DecimalInput;
  /** Fees charged for the swap. */
  feesSol: DecimalInput;
}

export interface SalePnl {
  netProceedsSol: Big;
  costBasisSol: Big;
  /** Add to the position's realizedProfitSol. */
  realizedProfitSol: Big;
  /** The position's heldCostSol after the sale. */
  heldCostAfterSol: Big;
}

/** What one sale (a take-profit level or the close) realizes: net proceeds less the average cost of the tokens sold. */
export function salePnl(input: SaleInput): SalePnl {
  const netProceedsSol = big(input.proceedsSol).minus(big(input.feesSol));
  const costBasisSol = costOfTokensSold(input.heldCostSol, input.remainingAmount, input.tokensSold);
  return {
    netProceedsSol,
    costBasisSol,
    realizedProfitSol: netProceedsSol.minus(costBasisSol),
    heldCostAfterSol: big(input.heldCostSol).minus(costBasisSol),
  };
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
  /** net proceeds + realized take-profit profit − cost of the tokens held: Σ realized over the position's life. */
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
  // The close sells every token held, so it takes all of the held cost.
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

/**
 * A closed position's P/L after a fee paid once it was booked (live: the close of its emptied
 * token account, a transaction after the sale): the fee comes off the P/L, its USD at the sale's
 * SOL price, and the percentage is measured against costSol again (docs/decisions/
 * pnl-is-wallet-gain.md).
 */
export function closedPnlLessFee(
  closed: { profitLossSol: DecimalInput; costSol: DecimalInput; solUsdPrice: DecimalInput },
  feeSol: DecimalInput,
): Pick<ClosePnl, "profitLossSol" | "profitLossUsd" | "changePercent"> {
  const profitLossSol = big(closed.profitLossSol).minus(big(feeSol));
  return {
    profitLossSol,
    profitLossUsd: profitLossSol.times(big(closed.solUsdPrice)),
    changePercent: percentOf(profitLossSol, big(closed.costSol)),
  };
}
