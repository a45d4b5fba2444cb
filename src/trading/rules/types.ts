// Structural slices of the agent's resolved trading configuration (SPEC.md "Agent trading
// configuration", PRODUCT.md §3). The rules depend only on these shapes, not on the module that
// defines the full `TradingConfig`, so any object of that shape fits. Numeric settings accept a
// number (as the configuration holds them), a decimal string or a Big.

import type { Big } from "../../money.ts";

/** A decimal value as the rules accept it. Converted with `new Big(v)`, never with float math. */
export type DecimalInput = Big | string | number;

export type TradingMode = "simulation" | "live";

/** closeReason values of a closed position (PRODUCT.md §4). */
export type CloseReason = "manual" | "stop_loss" | "stale_trade" | "take_profit" | "signal";

export interface PositionSizingSettings {
  type: "percentage" | "fixed";
  percentage: DecimalInput;
  fixedAmountSol: DecimalInput | null;
}

export interface StopLossSettings {
  enabled: boolean;
  /** Percentage below the peak price at which the position closes (1..100). */
  percentage: DecimalInput;
}

export interface TakeProfitSettings {
  enabled: boolean;
  /** Level n is reached at entry × (1 + n × percentage/100). */
  percentage: DecimalInput;
  /** Share of the REMAINING tokens sold at each level. */
  sellPercentage: DecimalInput;
  /** Levels before the remainder becomes the moon bag. */
  maxLevels: number;
}

export interface DcaSettings {
  enabled: boolean;
  maxOrders: number;
  priceDropTriggerPercentage: DecimalInput;
  /** Share of the ORIGINAL SOL cost bought by each order. */
  amountPercentage: DecimalInput;
}

export interface FilterSettings {
  minMarketCap: DecimalInput | null;
  maxMarketCap: DecimalInput | null;
  minLiquidity: DecimalInput | null;
  maxPositionAgeDays: DecimalInput | null;
  allowedTokens: readonly string[];
  blockedTokens: readonly string[];
  minSignalStrength: number;
  /** Entry signal types the agent acts on; empty = every type that is not an exit type. */
  signalTypes: readonly string[];
  /** Sources the agent trades; empty = every source (./signal-source.ts). */
  sources: readonly string[];
}

export interface SlippageSettings {
  defaultBps: number;
  maxBps: number;
}

interface TimingSettings {
  minTimeBetweenTradesSeconds: number;
}

/** The agent's own risk limits (issue 34 item 1); null = off. */
interface AgentRiskSettings {
  maxOpenPositions: number | null;
}

/** What eligibility needs from the configuration. */
export interface EligibilityConfig {
  filters: FilterSettings;
  timing: TimingSettings;
  minimumAgentBalance: DecimalInput;
  risk: AgentRiskSettings;
}

/** A user's account-wide limits for one trading mode (GET /risk-limits); each null = off. */
export interface RiskLimits {
  maxOpenPositions: number | null;
  maxExposureSol: DecimalInput | null;
  dailyLossLimitSol: DecimalInput | null;
}

/** The daily-loss breaker of one mode, while tripped (cleared only by POST /trading/resume). */
export interface TrippedBreaker {
  reason: string;
  /** ISO 8601. */
  at: string;
}

/** What the per-tick position rules need from the configuration. */
export interface PositionRulesConfig {
  stopLoss: StopLossSettings;
  takeProfit: TakeProfitSettings;
  dca: DcaSettings;
  filters: Pick<FilterSettings, "maxPositionAgeDays">;
}
