import type { TradingConfig } from "../agents/trading-config.ts";
import { Big } from "../money.ts";
import type { SwapFill } from "./executor.ts";
import type { TradingMode } from "./rules/types.ts";
import type { CloseResult, SaleSettled } from "./settlement/types.ts";
import type { SharedQuotes } from "./signal-quotes.ts";

// What the trading engine (trading-engine.ts) is asked to do and what it answers.

interface AgentForTrade {
  id: string;
  userId: string;
  name: string;
  tradingMode: TradingMode;
}

export interface OpenRequest {
  agent: AgentForTrade;
  config: TradingConfig;
  walletAddress: string;
  signal: { id: number; tokenAddress: string; symbol: string | null };
  sizeSol: Big;
  /** Market data symbol, when the caller fetched it. */
  marketSymbol?: string | null;
  /** Market data price (USD per token), when the caller fetched it: a live buy's fallback reference price. */
  marketPriceUsd?: string | null;
  /** Quotes shared across the agents trading this signal (see SwapRequest.sharedQuotes). */
  sharedQuotes?: SharedQuotes;
}

/**
 * How a signal buy ended, as one value (STYLE.md "One result, not three channels"):
 * - opened: the position exists;
 * - skipped: nothing was done, by `rule`: the buy was already made for this signal, or the guard
 *   rails' gate refused it (paused, risk_limit; guard-rails.ts admitBuy);
 * - failed: the trade failed and nothing changed (logged, event published);
 * - pending: a live swap was sent and awaits the chain, or was sent before a restart: the
 *   reconciler decides (the trade key says what it decided).
 */
export type OpenResult =
  | { status: "opened"; positionId: string | null }
  | { status: "skipped"; rule: "already_traded" | "paused" | "risk_limit"; reason: string }
  | { status: "failed"; reason: string; error?: unknown }
  | { status: "pending"; reason: string };

/** What a sale did: what it recorded (with the close's answer when the position closed), or why nothing happened. */
export type SaleResult =
  | { status: "sold"; closed: CloseResult | null; trade: SaleSettled }
  | { status: "skipped"; reason: string };

export const NOTHING_SOLD: SwapFill = {
  inputAtomic: 0n,
  outputAtomic: 0n,
  feesSol: new Big(0),
  routes: [],
  priceImpactPct: "0",
  slippageBps: 0,
  txHash: "",
  status: "confirmed",
};
