// Trailing stop-loss (PRODUCT.md §4): each tick first raises the peak to the current price when
// the price is higher, then the position closes (closeReason `stop_loss`) when
// price ≤ peak × (1 − stopLoss.percentage/100). A price exactly at the stop price triggers.

import type { Big } from "../../money.ts";
import { big, HUNDRED } from "./decimal-input.ts";
import type { DecimalInput, StopLossSettings } from "./types.ts";

/** The peak to persist after seeing `priceSol`: the highest price seen (starts at the entry price). */
export function nextPeak(peakPriceSol: DecimalInput, priceSol: DecimalInput): Big {
  const peak = big(peakPriceSol);
  const price = big(priceSol);
  return price.gt(peak) ? price : peak;
}

/** peak × (1 − percentage/100). */
export function stopLossPrice(peakPriceSol: DecimalInput, percentage: DecimalInput): Big {
  return big(peakPriceSol)
    .times(HUNDRED.minus(big(percentage)))
    .div(HUNDRED);
}

export type StopLossDecision =
  | { triggered: false; peakPriceSol: Big; stopPriceSol: Big | null }
  | { triggered: true; peakPriceSol: Big; stopPriceSol: Big };

/**
 * `peakPriceSol` is the persisted peak; the decision returns the updated peak (`nextPeak`) and the
 * stop price measured from it (null when stop-loss is disabled).
 */
export function evaluateStopLoss(
  settings: StopLossSettings,
  peakPriceSol: DecimalInput,
  priceSol: DecimalInput,
): StopLossDecision {
  const peak = nextPeak(peakPriceSol, priceSol);
  if (!settings.enabled) return { triggered: false, peakPriceSol: peak, stopPriceSol: null };
  const stop = stopLossPrice(peak, settings.percentage);
  return big(priceSol).lte(stop)
    ? { triggered: true, peakPriceSol: peak, stopPriceSol: stop }
    : { triggered: false, peakPriceSol: peak, stopPriceSol: stop };
}
