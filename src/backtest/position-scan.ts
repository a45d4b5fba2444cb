import type { TradingConfig } from "../agents/trading-config.ts";
import { dcaTriggerPrice, MS_PER_DAY, stopLossPrice, takeProfitLevelPrice, toBig } from "../trading/rules/index.ts";
import type { TokenPath } from "./types.ts";

// Skipping the minutes where no rule can fire, so a week of 1-minute bars costs a float compare
// per bar instead of a Big-decimal rule evaluation. The thresholds come from the rule functions
// themselves (stopLossPrice, takeProfitLevelPrice, dcaTriggerPrice, the stale age), with a
// margin, so the screen only ever wakes too often, never too late: the decision at a woken bar is
// always decidePositionAction's (src/trading/rules/position-action.ts).

const MARGIN = 1e-9;

export interface ScanState {
  openedAtMs: number;
  entryPriceSol: string;
  levelsHit: number;
  dcaOrders: number;
  moonBagActivated: boolean;
  remainingAmount: string;
}

export interface Screen {
  /** stop = peak × stopFactor (stopLossPrice is linear in the peak); NaN when stop-loss is off. */
  stopFactor: number;
  tpPrice: number;
  dcaPrice: number;
  /** Epoch ms from which the stale rule may fire. */
  staleAtMs: number;
}

export function stopFactorOf(config: Readonly<TradingConfig>): number {
  return config.stopLoss.enabled ? Number(stopLossPrice(1, config.stopLoss.percentage).toFixed(20)) : Number.NaN;
}

export function screenFor(config: Readonly<TradingConfig>, s: ScanState, stopFactor: number): Screen {
  const tp = config.takeProfit;
  const tpActive = tp.enabled && !s.moonBagActivated && s.levelsHit < tp.maxLevels && toBig(s.remainingAmount).gt(0);
  const dca = config.dca;
  const dcaActive = dca.enabled && !s.moonBagActivated && s.dcaOrders < dca.maxOrders;
  const maxDays = config.filters.maxPositionAgeDays;
  return {
    stopFactor,
    tpPrice: tpActive
      ? Number(takeProfitLevelPrice(s.entryPriceSol, tp.percentage, s.levelsHit + 1).toFixed(20))
      : Number.POSITIVE_INFINITY,
    dcaPrice: dcaActive
      ? Number(dcaTriggerPrice(s.entryPriceSol, dca.priceDropTriggerPercentage, s.dcaOrders + 1).toFixed(20))
      : Number.NEGATIVE_INFINITY,
    staleAtMs:
      maxDays === null
        ? Number.POSITIVE_INFINITY
        : s.openedAtMs + Math.floor(Number(toBig(maxDays).times(MS_PER_DAY).toFixed(0))),
  };
}

export interface ScanHit {
  /** The bar to evaluate the rules at; the last bar when nothing may fire before the data ends. */
  index: number;
  /** Index of the highest close among the bars skipped before `index` (-1: none higher than the peak). */
  peakIndex: number;
  /** True when nothing may fire: `index` is the last bar. */
  endOfData: boolean;
}

/** The first bar at or after `from` where a rule may fire, with the running peak of the skipped bars. */
export function scan(path: TokenPath, from: number, peak: number, screen: Screen): ScanHit {
  const { closeNums, times } = path;
  const n = closeNums.length;
  let runPeak = peak;
  let peakIndex = -1;
  const stopOn = !Number.isNaN(screen.stopFactor);
  const tpAt = screen.tpPrice * (1 - MARGIN);
  const dcaAt = screen.dcaPrice * (1 + MARGIN);
  let stopAt = stopOn ? runPeak * screen.stopFactor * (1 + MARGIN) : Number.NEGATIVE_INFINITY;
  for (let i = from; i < n; i++) {
    const p = closeNums[i]!;
    if (p <= stopAt || p >= tpAt || p <= dcaAt || times[i]! >= screen.staleAtMs)
      return { index: i, peakIndex, endOfData: false };
    if (p > runPeak) {
      runPeak = p;
      peakIndex = i;
      if (stopOn) stopAt = runPeak * screen.stopFactor * (1 + MARGIN);
    }
  }
  return { index: n - 1, peakIndex, endOfData: true };
}
