// Take-profit levels with moon bag (PRODUCT.md §4).
// - Level n is reached at entry × (1 + n × takeProfit.percentage/100), entry being the position's
//   (average) entry price, purchase.priceNative. Exactly at the level price counts as reached.
// - Each level sells sellPercentage % of the REMAINING tokens, rounded down to the token's decimals.
// - After the maxLevels-th sale the remainder is the moon bag: no more take-profit (nor DCA); it is
//   left to stop-loss, stale-trade or a manual close.
// - One level per tick (docs/decisions.md "Trading rules"): only the next level (levelsHit + 1) is
//   considered; when the price jumped past several levels, the following ticks sell the next ones
//   while the price stays above them. Each sale is one SELL transaction and raises levelsHit by one.
// - A sale that leaves nothing (sellPercentage 100) closes the position with closeReason `take_profit`.

import { Big, SOL_DECIMALS, toAtomic } from "../../money.ts";
import { big, HUNDRED, roundTokens } from "./decimal-input.ts";
import type { DecimalInput, TakeProfitSettings } from "./types.ts";

export interface TakeProfitPositionState {
  /** Average entry price in SOL (purchase.priceNative). */
  entryPriceSol: DecimalInput;
  /** Tokens still held, whole-token decimal. */
  remainingAmount: DecimalInput;
  levelsHit: number;
  moonBagActivated: boolean;
  /** Decimals of the token's mint: sale amounts are whole atomic units. */
  tokenDecimals: number;
}

export type TakeProfitDecision =
  | { triggered: false }
  | {
      triggered: true;
      /** The level reached (= the new levelsHit). */
      level: number;
      levelPriceSol: Big;
      /** Tokens to sell (> 0, ≤ remaining). */
      sellAmount: Big;
      remainingAfter: Big;
      /** levelsHit to persist after the sale. */
      levelsHit: number;
      /** True when this sale was the last level and tokens remain. */
      moonBagActivated: boolean;
      /** remainingAfter when the moon bag activates, else null. */
      moonBagAmount: Big | null;
      /** Nothing remains after this sale: close with closeReason `take_profit`. */
      closesPosition: boolean;
    };

/** entry × (1 + level × percentage/100). */
export function takeProfitLevelPrice(entryPriceSol: DecimalInput, percentage: DecimalInput, level: number): Big {
  return big(entryPriceSol)
    .times(HUNDRED.plus(big(percentage).times(level)))
    .div(HUNDRED);
}

export function evaluateTakeProfit(
  settings: TakeProfitSettings,
  position: TakeProfitPositionState,
  priceSol: DecimalInput,
): TakeProfitDecision {
  const none: TakeProfitDecision = { triggered: false };
  if (!settings.enabled || position.moonBagActivated || position.levelsHit >= settings.maxLevels) return none;
  const remaining = big(position.remainingAmount);
  if (remaining.lte(0)) return none;

  const level = position.levelsHit + 1;
  const levelPrice = takeProfitLevelPrice(position.entryPriceSol, settings.percentage, level);
  if (big(priceSol).lt(levelPrice)) return none;

  const sellShare = big(settings.sellPercentage);
  const wanted = sellShare.gte(HUNDRED) ? remaining : remaining.times(sellShare).div(HUNDRED);
  const sellAmount = roundTokens(wanted, position.tokenDecimals);
  // Nothing to sell at this precision (dust): the level does not fire.
  if (sellAmount.lte(0)) return none;

  const remainingAfter = remaining.minus(sellAmount);
  const closesPosition = remainingAfter.lte(0);
  const moonBagActivated = !closesPosition && level >= settings.maxLevels;
  return {
    triggered: true,
    level,
    levelPriceSol: levelPrice,
    sellAmount,
    remainingAfter: closesPosition ? new Big(0) : remainingAfter,
    levelsHit: level,
    moonBagActivated,
    moonBagAmount: moonBagActivated ? remainingAfter : null,
    closesPosition,
  };
}

/**
 * The price floor of a take-profit sale in lamports: `amount` tokens at the level's price less
 * the sale's slippage, rounded down. The sale is decided on the tick's price and made on a quote
 * taken later; below this the level has not really been reached and nothing is sold.
 */
export function takeProfitFloorLamports(
  amount: DecimalInput,
  levelPriceSol: DecimalInput,
  slippageBps: number,
): bigint {
  const sol = big(amount)
    .times(big(levelPriceSol))
    .times(10_000 - slippageBps)
    .div(10_000);
  return toAtomic(sol, SOL_DECIMALS);
}
