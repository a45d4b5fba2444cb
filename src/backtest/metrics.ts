import { Big } from "../money.ts";
import type { BacktestTrade, VariantSummary } from "./types.ts";

// A variant's figures from its trades and its equity curve (sampled after every trade,
// open positions at their last price). Percentages are of the starting balance; win = P/L > 0.

const round = (v: number, dp = 4) => Number(v.toFixed(dp));

export function summarize(
  initialSol: string,
  trades: readonly BacktestTrade[],
  equity: ReadonlyArray<{ time: number; valueSol: Big }>,
  openMs: number,
  skipped: Record<string, number>,
): VariantSummary {
  let wins = 0;
  let losses = 0;
  let grossProfit = new Big(0);
  let grossLoss = new Big(0);
  let total = new Big(0);
  let holdMs = 0;
  for (const t of trades) {
    const pnl = new Big(t.profitLossSol);
    total = total.plus(pnl);
    if (pnl.gt(0)) {
      wins++;
      grossProfit = grossProfit.plus(pnl);
    } else if (pnl.lt(0)) {
      losses++;
      grossLoss = grossLoss.plus(pnl.abs());
    }
    holdMs += t.closedAtMs - t.openedAtMs;
  }
  let peak = new Big(initialSol);
  let maxDrawdown = 0;
  for (const e of equity) {
    if (e.valueSol.gt(peak)) peak = e.valueSol;
    if (peak.gt(0)) maxDrawdown = Math.max(maxDrawdown, Number(peak.minus(e.valueSol).div(peak).times(100)));
  }
  const start = new Big(initialSol);
  const span = equity.length > 1 ? equity[equity.length - 1]!.time - equity[0]!.time : 0;
  return {
    trades: trades.length,
    wins,
    losses,
    winRate: trades.length ? round(wins / trades.length) : 0,
    // SOL to the lamport (9 decimals): a sum of per-trade P/Ls computed through prices carries
    // sub-lamport digits (-0.018922826000000001) no wallet could hold; to the nearest lamport.
    profitLossSol: total.round(9, Big.roundHalfUp).toFixed(),
    returnPercent: start.gt(0) ? round(Number(total.div(start).times(100))) : 0,
    maxDrawdownPercent: round(maxDrawdown),
    profitFactor: grossLoss.gt(0) ? round(Number(grossProfit.div(grossLoss))) : null,
    averageHoldMinutes: trades.length ? round(holdMs / trades.length / 60_000, 2) : 0,
    exposure: span > 0 ? round(Math.min(1, openMs / span)) : 0,
    skipped,
  };
}
