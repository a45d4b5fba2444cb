// Eligibility of an agent for an ENTRY signal (PRODUCT.md §4, SPEC.md "Facts about trading
// behaviour"). The checks run in the order PRODUCT.md gives and the FIRST failing one is
// reported, with a machine name for tests and metrics and a human reason for the log line.
//
// Market data is the only input that costs a network call, and PRODUCT.md places its check
// after the cheap ones. So the rules come in two halves the engine can call separately:
//   checkBeforeMarketData → (fetch market data only if needsMarketData(filters)) → checkMarketAndBalance
// `evaluateEligibility` runs both over a market-data value; `evaluateEligibilityAsync` takes a
// loader and calls it only when the first half passed and a market filter is set.

import { decStr } from "../../money.ts";
import { big } from "./decimal-input.ts";
import { type SignalOrigin, sourceRefusal } from "./signal-source.ts";
import type {
  DecimalInput,
  EligibilityConfig,
  FilterSettings,
  RiskLimits,
  TradingMode,
  TrippedBreaker,
} from "./types.ts";

/** Machine names of the rules, in evaluation order. */
export const ELIGIBILITY_RULES = [
  "automation",
  "live_trading",
  "paused",
  "wallet",
  "source",
  "signal_strength",
  "signal_type",
  "allowed_tokens",
  "blocked_tokens",
  "open_position",
  "trade_interval",
  "market_data",
  "min_market_cap",
  "max_market_cap",
  "min_liquidity",
  "minimum_balance",
  "trade_size",
  "risk_limit",
] as const;
export type EligibilityRule = (typeof ELIGIBILITY_RULES)[number];

export type EligibilityResult = { eligible: true } | { eligible: false; rule: EligibilityRule; reason: string };

interface AgentTradingFlags {
  tradingMode: TradingMode;
  automatedTradingSimulation: boolean;
  automatedTradingLive: boolean;
}

/** The signal with who sent it (rules/signal-source.ts). */
interface EntrySignal extends SignalOrigin {
  tokenAddress: string;
  signalStrength: number;
  signalType: string;
}

/** Market data of the signal's token; any field may be missing at the provider (PRODUCT.md §5). */
export interface TokenMarketData {
  marketCap: DecimalInput | null;
  liquidity: DecimalInput | null;
}

export interface PreMarketEligibilityInput {
  agent: AgentTradingFlags;
  config: Pick<EligibilityConfig, "filters" | "timing">;
  signal: EntrySignal;
  /** LIVE_TRADING_ENABLED. */
  liveTradingEnabled: boolean;
  /** The owner paused entries in the agent's current mode (POST /trading/pause). */
  paused: boolean;
  /** The agent has a wallet of its current tradingMode. */
  hasWallet: boolean;
  /** The agent already holds an open position on the signal's token. */
  hasOpenPositionOnToken: boolean;
  /** Epoch ms of the agent's last trade, or null if it never traded. */
  lastTradeAtMs: number | null;
  nowMs: number;
}

/**
 * The owner's account in the agent's current mode at the time of the entry (issue 34 item 1).
 * Counts and sums cover every open position of the owner's agents in that mode.
 */
export interface RiskState {
  limits: RiskLimits;
  /** The mode's daily-loss breaker, while tripped. */
  tripped: TrippedBreaker | null;
  openPositions: number;
  /** Open positions of this agent (its own risk.maxOpenPositions). */
  agentOpenPositions: number;
  /** SOL spent on the open positions (their cost basis). */
  exposureSol: DecimalInput;
  /** Realized loss over the last 24 h plus the unrealized loss of positions opened in them; negative = a gain. */
  dailyLossSol: DecimalInput;
}

export interface MarketAndBalanceInput {
  config: Pick<EligibilityConfig, "filters" | "minimumAgentBalance" | "risk">;
  /** Only used in reasons. */
  tokenAddress: string;
  /** null when the market data could not be had. Ignored when no market filter is set. */
  marketData: TokenMarketData | null;
  /** SOL balance of the agent's wallet of its current mode. */
  solBalance: DecimalInput;
  /** The trade's SOL size, from `positionSizeSol`. */
  tradeSizeSol: DecimalInput;
  /**
   * The account's standing for rule risk_limit. Absent when the buy goes through the guard
   * rails' gate (src/trading/guard-rails.ts admitBuy), which judges it with riskLimitRefusal at the
   * moment of the buy; the backtest, which has no gate, passes it.
   */
  risk?: RiskState;
}

export type EligibilityInput = PreMarketEligibilityInput &
  Omit<MarketAndBalanceInput, "config" | "tokenAddress" | "risk"> & {
    config: EligibilityConfig;
    risk: RiskState;
  };

const ELIGIBLE: EligibilityResult = { eligible: true };
const refuse = (rule: EligibilityRule, reason: string): EligibilityResult => ({ eligible: false, rule, reason });

/** The rules up to trade_interval: everything that needs no market data. */
export function checkBeforeMarketData(input: PreMarketEligibilityInput): EligibilityResult {
  const { agent, config, signal } = input;
  const mode = agent.tradingMode;
  const token = signal.tokenAddress;

  const automation = mode === "live" ? agent.automatedTradingLive : agent.automatedTradingSimulation;
  if (!automation) return refuse("automation", `Automated trading is disabled for ${mode} mode`);

  if (mode === "live" && !input.liveTradingEnabled) {
    return refuse("live_trading", "Live trading is disabled on this service (LIVE_TRADING_ENABLED is false)");
  }

  if (input.paused) return refuse("paused", pausedReason(mode));

  if (!input.hasWallet) return refuse("wallet", `Agent has no ${mode} wallet`);

  const notMySource = sourceRefusal(config.filters.sources, signal);
  if (notMySource) return refuse("source", notMySource);

  const minStrength = config.filters.minSignalStrength;
  if (signal.signalStrength < minStrength) {
    return refuse("signal_strength", `Signal strength ${signal.signalStrength} is below the minimum ${minStrength}`);
  }

  const typeRefusal = signalTypeRefusal(config.filters.signalTypes, signal.signalType);
  if (typeRefusal) return refuse("signal_type", typeRefusal);

  // Token addresses are base58 and case-sensitive: compared exactly.
  const { allowedTokens, blockedTokens } = config.filters;
  if (allowedTokens.length > 0 && !allowedTokens.includes(token)) {
    return refuse("allowed_tokens", `Token ${token} is not in allowedTokens`);
  }
  if (blockedTokens.includes(token)) return refuse("blocked_tokens", `Token ${token} is in blockedTokens`);

  if (input.hasOpenPositionOnToken) {
    return refuse("open_position", `Agent already holds an open position on token ${token}`);
  }

  const minGapSeconds = config.timing.minTimeBetweenTradesSeconds;
  if (input.lastTradeAtMs !== null && minGapSeconds > 0) {
    // Exactly minTimeBetweenTradesSeconds after the last trade counts as elapsed.
    const elapsedMs = input.nowMs - input.lastTradeAtMs;
    if (elapsedMs < minGapSeconds * 1000) {
      const elapsed = decStr(big(elapsedMs).div(1000), 3);
      return refuse(
        "trade_interval",
        `Only ${elapsed}s since the last trade; minTimeBetweenTradesSeconds is ${minGapSeconds}`,
      );
    }
  }

  return ELIGIBLE;
}

/** Rule `paused`'s reason, the same from the entry rules and from the guard rails' gate. */
export function pausedReason(mode: TradingMode): string {
  return `Trading is paused for ${mode} mode; POST /api/v1/trading/resume resumes it`;
}

/** The entry types an agent buys on when its `filters.signalTypes` is empty (issue 34 item 3). */
const DEFAULT_ENTRY_TYPES = ["buy", "long", "entry"] as const;

/**
 * PRODUCT.md §7 `filters.signalTypes`: a non-empty list accepts only its types; an empty list
 * accepts only DEFAULT_ENTRY_TYPES, so `hold`, `watch` or a typo is stored and shown but opens
 * nothing (docs/decisions/operator-experience-iv.md). Exit types never reach eligibility.
 * Letter case is ignored, as it is for the exit types, so "Buy" in a signal matches "buy".
 */
function signalTypeRefusal(signalTypes: readonly string[], signalType: string): string | null {
  const wanted = signalType.toLowerCase();
  if (signalTypes.length === 0) {
    if ((DEFAULT_ENTRY_TYPES as readonly string[]).includes(wanted)) return null;
    return `Signal type "${signalType}" is not an entry type (${DEFAULT_ENTRY_TYPES.join(", ")}); list it in filters.signalTypes to buy on it`;
  }
  if (signalTypes.some((t) => t.toLowerCase() === wanted)) return null;
  return `Signal type "${signalType}" is not in signalTypes`;
}

/** A market filter is set (a set filter, even 0, needs market data: PRODUCT.md §4). */
export function needsMarketData(
  filters: Pick<FilterSettings, "minMarketCap" | "maxMarketCap" | "minLiquidity">,
): boolean {
  return filters.minMarketCap !== null || filters.maxMarketCap !== null || filters.minLiquidity !== null;
}

/** market_data to risk_limit: market cap and liquidity inside the filters (bounds inclusive), the balance, the risk limits. */
export function checkMarketAndBalance(input: MarketAndBalanceInput): EligibilityResult {
  const { filters } = input.config;
  const token = input.tokenAddress;
  const md = input.marketData;

  if (needsMarketData(filters)) {
    if (md === null) return refuse("market_data", `Market data unavailable for token ${token}; market filters are set`);
    const capFilterSet = filters.minMarketCap !== null || filters.maxMarketCap !== null;
    if (capFilterSet && (md.marketCap === null || md.marketCap === undefined)) {
      return refuse("market_data", `Market cap unavailable for token ${token}; a market cap filter is set`);
    }
    if (filters.minLiquidity !== null && (md.liquidity === null || md.liquidity === undefined)) {
      return refuse("market_data", `Liquidity unavailable for token ${token}; minLiquidity is set`);
    }
    if (filters.minMarketCap !== null && big(md.marketCap!).lt(big(filters.minMarketCap))) {
      return refuse(
        "min_market_cap",
        `Market cap ${decStr(big(md.marketCap!))} is below minMarketCap ${decStr(big(filters.minMarketCap))}`,
      );
    }
    if (filters.maxMarketCap !== null && big(md.marketCap!).gt(big(filters.maxMarketCap))) {
      return refuse(
        "max_market_cap",
        `Market cap ${decStr(big(md.marketCap!))} is above maxMarketCap ${decStr(big(filters.maxMarketCap))}`,
      );
    }
    if (filters.minLiquidity !== null && big(md.liquidity!).lt(big(filters.minLiquidity))) {
      return refuse(
        "min_liquidity",
        `Liquidity ${decStr(big(md.liquidity!))} is below minLiquidity ${decStr(big(filters.minLiquidity))}`,
      );
    }
  }

  const balance = big(input.solBalance);
  const minimum = big(input.config.minimumAgentBalance);
  if (balance.lt(minimum)) {
    return refuse("minimum_balance", `SOL balance ${decStr(balance)} is below minimumAgentBalance ${decStr(minimum)}`);
  }
  const size = big(input.tradeSizeSol);
  if (size.lte(0)) return refuse("trade_size", `Trade size ${decStr(size)} SOL is not positive`);
  if (balance.lt(size)) {
    return refuse("trade_size", `SOL balance ${decStr(balance)} is below the trade size ${decStr(size)}`);
  }

  const limit = input.risk ? riskLimitRefusal(input.risk, input.config.risk.maxOpenPositions, size) : null;
  return limit ? refuse("risk_limit", limit) : ELIGIBLE;
}

/**
 * Rule `risk_limit` (issue 34 item 1): the first limit the entry would break, named in the reason
 * (its field name first, so the reason reads "maxExposureSol: …"), or null. A tripped breaker and
 * a daily loss over the limit come first: they stop every entry, whatever its size.
 */
export function riskLimitRefusal(
  risk: RiskState,
  agentMaxOpenPositions: number | null,
  sizeSol: DecimalInput,
): string | null {
  const { limits } = risk;
  if (risk.tripped) {
    return `dailyLossLimitSol: the daily loss breaker tripped at ${risk.tripped.at} (${risk.tripped.reason}); POST /api/v1/trading/resume resumes`;
  }
  if (dailyLossOver(limits.dailyLossLimitSol, risk.dailyLossSol)) {
    return `dailyLossLimitSol: the loss of the last 24 h, ${decStr(big(risk.dailyLossSol))} SOL, is over the limit of ${decStr(big(limits.dailyLossLimitSol!))} SOL`;
  }
  if (agentMaxOpenPositions !== null && risk.agentOpenPositions + 1 > agentMaxOpenPositions) {
    return `risk.maxOpenPositions: the agent holds ${risk.agentOpenPositions} open positions; its limit is ${agentMaxOpenPositions}`;
  }
  if (limits.maxOpenPositions !== null && risk.openPositions + 1 > limits.maxOpenPositions) {
    return `maxOpenPositions: ${risk.openPositions} positions are open; the limit is ${limits.maxOpenPositions}`;
  }
  if (limits.maxExposureSol !== null) {
    const after = big(risk.exposureSol).plus(big(sizeSol));
    if (after.gt(big(limits.maxExposureSol))) {
      return `maxExposureSol: ${decStr(big(risk.exposureSol))} SOL open plus this trade's ${decStr(big(sizeSol))} SOL is over the limit of ${decStr(big(limits.maxExposureSol))} SOL`;
    }
  }
  return null;
}

/** The breaker's test: a loss strictly over the limit trips it; a null limit never does. */
export function dailyLossOver(limitSol: DecimalInput | null, lossSol: DecimalInput): boolean {
  return limitSol !== null && big(lossSol).gt(big(limitSol));
}

const marketInput = (input: EligibilityInput, marketData: TokenMarketData | null): MarketAndBalanceInput => ({
  config: input.config,
  tokenAddress: input.signal.tokenAddress,
  marketData,
  solBalance: input.solBalance,
  tradeSizeSol: input.tradeSizeSol,
  risk: input.risk,
});

/** All rules in order over a market-data value (null = could not be had). */
export function evaluateEligibility(input: EligibilityInput): EligibilityResult {
  const first = checkBeforeMarketData(input);
  if (!first.eligible) return first;
  return checkMarketAndBalance(marketInput(input, input.marketData));
}

/**
 * All rules in order, fetching market data lazily: `loadMarketData` is called at most once, and
 * only when the cheap rules passed and a market filter is set. A loader that returns null or
 * throws means "market data cannot be had" (rule `market_data`, the error text in the reason).
 */
export async function evaluateEligibilityAsync(
  input: Omit<EligibilityInput, "marketData">,
  loadMarketData: () => Promise<TokenMarketData | null> | TokenMarketData | null,
): Promise<EligibilityResult> {
  const first = checkBeforeMarketData(input);
  if (!first.eligible) return first;
  let marketData: TokenMarketData | null = null;
  if (needsMarketData(input.config.filters)) {
    try {
      marketData = await loadMarketData();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return refuse(
        "market_data",
        `Market data unavailable for token ${input.signal.tokenAddress}; market filters are set (${why})`,
      );
    }
  }
  return checkMarketAndBalance(marketInput({ ...input, marketData }, marketData));
}
