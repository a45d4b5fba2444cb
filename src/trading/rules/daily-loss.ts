// The daily loss the breaker of issue 34 item 1 watches (docs/decisions/operator-experience-iv.md):
// what the positions closed in the window lost in all (their historical swap's P/L), plus what the
// positions opened in the window and still open have lost so far: realized take-profit sales plus
// the remaining tokens marked at the monitor's last price (the entry price before the first tick).
// Positive = a loss, negative = a gain. Pure: rows in, a Big out.

import { Big } from "../../money.ts";
import { big } from "./decimal-input.ts";
import type { DecimalInput } from "./types.ts";

export interface OpenPositionMark {
  realizedProfitSol: DecimalInput;
  remainingAmount: DecimalInput;
  heldCostSol: DecimalInput;
  entryPriceSol: DecimalInput;
  /** The monitor's last price; null before its first tick. */
  lastPriceSol: DecimalInput | null;
}

export function dailyLossSol(closedProfitLossSol: readonly DecimalInput[], open: readonly OpenPositionMark[]): Big {
  let pnl = new Big(0);
  for (const c of closedProfitLossSol) pnl = pnl.plus(big(c));
  for (const p of open) {
    const value = big(p.remainingAmount).times(big(p.lastPriceSol ?? p.entryPriceSol));
    pnl = pnl.plus(big(p.realizedProfitSol)).plus(value.minus(big(p.heldCostSol)));
  }
  return pnl.times(-1);
}
