import type { Big } from "../money.ts";
import { decStr } from "../money.ts";
import type { SignalOrigin } from "../trading/rules/signal-source.ts";
import type { BuyFill } from "./fills.ts";
import type { ScanState } from "./position-scan.ts";
import type { BacktestCloseReason, BacktestTrade, ReplaySignal, TokenPath } from "./types.ts";

// A replayed position as the positions table holds it (decimal strings, so the rules see the
// engine's inputs), how the opening buy creates it and the trade it becomes when it closes.

export interface OpenPosition extends ScanState {
  seq: number;
  time: number;
  signalId: number;
  /** Who sent the opening signal: an exit of another source leaves the position open. */
  opener: SignalOrigin;
  tokenAddress: string;
  path: TokenPath;
  /** Bar index: where the next scan starts, or (armed) the bar to evaluate. */
  next: number;
  armed: boolean;
  peakPriceSol: string;
  purchaseAmount: string;
  costSol: string;
  heldCostSol: string;
  realizedProfitSol: string;
  openingSolAmount: string;
  /** remainingAmount as a float, for the equity curve only. */
  remainingNum: number;
}

/** The price and P/L of the sale that closes a position (price null: nothing was left to sell). */
export interface ClosingSale {
  price: string | null;
  pnl: Big;
  change: Big;
}

/** The position a signal's opening buy creates at bar `index` (its first turn is the next bar). */
export function openedPosition(
  e: { signal: ReplaySignal; path: TokenPath; index: number; time: number },
  fill: BuyFill,
): OpenPosition {
  const entry = decStr(fill.solSwapped.div(fill.tokens));
  return {
    seq: 0,
    time: e.time,
    signalId: e.signal.id,
    opener: e.signal,
    tokenAddress: e.signal.tokenAddress,
    path: e.path,
    next: e.index + 1,
    armed: false,
    openedAtMs: e.time,
    entryPriceSol: entry,
    peakPriceSol: entry,
    levelsHit: 0,
    dcaOrders: 0,
    moonBagActivated: false,
    remainingAmount: decStr(fill.tokens),
    purchaseAmount: decStr(fill.tokens),
    costSol: decStr(fill.cost),
    heldCostSol: decStr(fill.cost),
    realizedProfitSol: "0",
    openingSolAmount: decStr(fill.solSwapped),
    remainingNum: Number(fill.tokens),
  };
}

export function closedTrade(
  p: OpenPosition,
  time: number,
  reason: BacktestCloseReason,
  sale: ClosingSale,
): BacktestTrade {
  return {
    signalId: p.signalId,
    tokenAddress: p.tokenAddress,
    openedAtMs: p.openedAtMs,
    closedAtMs: time,
    entryPriceSol: p.entryPriceSol,
    exitPriceSol: sale.price,
    amount: p.purchaseAmount,
    costSol: p.costSol,
    profitLossSol: decStr(sale.pnl),
    changePercent: decStr(sale.change, 4),
    closeReason: reason,
    takeProfitLevels: p.levelsHit,
    dcaOrders: p.dcaOrders,
  };
}
