import type { TradingConfig } from "../agents/trading-config.ts";
import type { ImpactTable } from "../price-impact.ts";
import type { SignalOrigin } from "../trading/rules/signal-source.ts";

// Inputs and outputs of one backtest replay.

/** A signal replayed, with who sent it (filters.sources and same-source exits apply as live). */
export interface ReplaySignal extends SignalOrigin {
  id: number;
  tokenAddress: string;
  signalType: string;
  signalStrength: number;
  /** Epoch ms the signal was created. */
  timeMs: number;
}

/**
 * A token's price path: 1-minute bars oldest first. Bar i stands for the price at `times[i]` (its
 * close; docs/decisions.md "Strategy lab"). `closeNums` only pre-screens bars; rules get `closes`.
 */
export interface TokenPath {
  times: number[];
  closes: string[];
  closeNums: Float64Array;
  decimals: number;
}

export interface ReplayInput {
  config: Readonly<TradingConfig>;
  /** Starting SOL balance, decimal string. */
  initialSol: string;
  /** Oldest first. */
  signals: readonly ReplaySignal[];
  paths: ReadonlyMap<string, TokenPath>;
  /** SIMULATION_PRIORITY_FEE_SOL: every simulated swap pays it plus the network fee. */
  priorityFeeSol: number;
  /** Recorded price impacts (src/price-impact.ts); absent: the default for every fill. */
  impacts?: ImpactTable;
}

export type BacktestCloseReason = "stop_loss" | "stale_trade" | "take_profit" | "signal" | "end_of_data";

/** One simulated position, opening buy to close: the fields of a historical swap. */
export interface BacktestTrade {
  signalId: number;
  tokenAddress: string;
  openedAtMs: number;
  closedAtMs: number;
  entryPriceSol: string;
  /** Price of the closing sale; null when take-profit had sold everything. */
  exitPriceSol: string | null;
  /** Tokens bought in total. */
  amount: string;
  costSol: string;
  profitLossSol: string;
  changePercent: string;
  closeReason: BacktestCloseReason;
  takeProfitLevels: number;
  dcaOrders: number;
}

export interface EquityPoint {
  time: string;
  valueSol: string;
}

export interface VariantSummary {
  trades: number;
  wins: number;
  losses: number;
  winRate: number;
  profitLossSol: string;
  returnPercent: number;
  maxDrawdownPercent: number;
  /** Gross profit / gross loss; null without any loss. */
  profitFactor: number | null;
  averageHoldMinutes: number;
  /** Share of the replayed time with at least one position open (0..1). */
  exposure: number;
  /** Entry signals refused by eligibility, by rule; plus `no_price_data` and `failed` fills. */
  skipped: Record<string, number>;
}

export interface ReplayResult {
  trades: BacktestTrade[];
  equity: EquityPoint[];
  summary: VariantSummary;
}
