import type { PositionRecord } from "../../db/repositories/positions.ts";
import type { Logger } from "../../logger.ts";
import type { Big } from "../../money.ts";
import type { SwapFill } from "../executor.ts";
import type { DcaFillResult } from "../rules/dca.ts";
import type { CloseReason, TradingMode } from "../rules/types.ts";

// The settlement interface: the engine decides and sizes, an executor swaps, and a
// Settlement records the fill in one synchronous SQLite transaction. Simulation (ledger debit
// and credit at the quote's amounts) and live (the chain's amounts, balances mirrored, pending
// trades) each implement it; what they settled goes to the ONE post-commit step (post-commit.ts)
// for the log line, the metric and the events.

/** The answer of a close (POST .../close, SPEC "Close position"). */
export interface CloseResult {
  success: true;
  transactionId: string;
  historicalSwapId: string;
  profitLossSol: number;
  profitLossUsd: number;
  changePercent: number;
  transactionHash: string;
}

/** A signal buy about to be recorded. */
export interface OpenTrade {
  agentId: string;
  userId: string;
  walletAddress: string;
  signalId: number;
  tokenAddress: string;
  symbol: string;
  decimals: number;
  /** The agent's trading mode, as the records state it. */
  mode: TradingMode;
}

/** What a sale of an open position does to it: a take-profit level, a manual part, or the close. */
export type SaleRequest =
  | { kind: "close"; reason: CloseReason; signalId?: number }
  | {
      /**
       * The operator sells a part of the position (the sell buttons, POST .../sell; issue 44
       * item 5): it never closes it (100 % is the close) and leaves the take-profit levels as they are.
       */
      kind: "manual_sale";
      /** Tokens to sell: `percent` of what remains, rounded down to the token's decimals. */
      amount: Big;
      /** The share of the remaining tokens asked for, as a decimal string ("25"). */
      percent: string;
      /** The manual SELL signal recording the request: its trade key makes the sale happen once. */
      signalId: number;
    }
  | {
      kind: "take_profit";
      /** Tokens to sell (the engine sizes the swap with it; the fill says what was sold). */
      amount?: Big;
      levelsHit: number;
      /** The level's price (SOL per token): the sale's price floor, less slippage. */
      levelPriceSol?: Big;
      moonBagActivated: boolean;
      moonBagAmount: Big | null;
      closesPosition: boolean;
    };

/** The signal whose trade key a sale takes: an exit signal's close, a manual sale's own signal. */
export const saleSignalId = (s: SaleRequest): number | undefined => (s.kind === "take_profit" ? undefined : s.signalId);

/** Why a sale happens, as the slippage rules and the records name it. */
export const saleReason = (s: SaleRequest): CloseReason =>
  s.kind === "close" ? s.reason : s.kind === "manual_sale" ? "manual" : "take_profit";

/** Whether the sale closes the position (a close, or a take-profit sale that leaves nothing). */
export const saleCloses = (s: SaleRequest): boolean =>
  s.kind === "close" || (s.kind === "take_profit" && s.closesPosition);

/** What a log line or an event says about the sale: the close's reason, the level, or the manual share. */
export function saleContext(
  s: SaleRequest,
): { reason: CloseReason } | { takeProfitLevel: number } | { reason: "manual"; percent: number } {
  if (s.kind === "close") return { reason: s.reason };
  if (s.kind === "manual_sale") return { reason: "manual", percent: Number(s.percent) };
  return { takeProfitLevel: s.levelsHit };
}

interface SettledBase {
  mode: TradingMode;
  userId: string;
  agentId: string;
  tokenAddress: string;
  transactionId: string;
  /** Swap signature or simulation id; null where the record never showed it (simulated DCA). */
  hash: string | null;
  /** Live only: whether the reconciler settled it from a pending trade. */
  reconciled?: boolean;
}

export interface OpenSettled extends SettledBase {
  kind: "open";
  signalId: number;
  /** null: a live buy that landed while the agent already held the token (recorded, no position). */
  positionId: string | null;
  symbol: string;
  cost: Big;
  tokens: Big;
  entrySol: Big;
}

export interface DcaSettled extends SettledBase {
  kind: "dca";
  positionId: string;
  order: number;
  cost: Big;
  tokens: Big;
  /** The position after the buy; null when a live buy landed after its position closed. */
  next: DcaFillResult | null;
}

export interface SaleSettled extends SettledBase {
  kind: "sale";
  positionId: string;
  sale: SaleRequest;
  sold: Big;
  proceeds: Big;
  /** Whether a swap took place (a close after take-profit sold everything records only the outcome). */
  traded: boolean;
  /** The position was open when the sale was booked (a late live sale changes no position). */
  positionWasOpen: boolean;
  closing: boolean;
  closed: CloseResult | null;
  levelsHitBefore: number;
  remainingAfter: Big;
  realizedAfter: Big;
}

export type Settled = OpenSettled | DcaSettled | SaleSettled;

/**
 * What a settlement did with a fill: recorded it, recorded a PENDING live trade (the reconciler
 * settles it later), or nothing because another run got there first (a result, not an error).
 */
export type SettleOutcome<T extends Settled> =
  | { status: "settled"; trade: T }
  | { status: "pending"; signature: string }
  | { status: "skipped"; reason: string };

export interface Settlement {
  /** The logger its trades are reported under (component "trading" or "live"). */
  readonly logger: Logger;
  /** Signal buy: the position, the transaction, the trade key, balances and the snapshot. */
  open(t: OpenTrade, fill: SwapFill, solUsd: Big): SettleOutcome<OpenSettled>;
  /** DCA order `order` of a position. */
  dca(p: PositionRecord, order: number, fill: SwapFill, solUsd: Big): SettleOutcome<DcaSettled>;
  /** Take-profit sale, manual share or close of a position. */
  sell(p: PositionRecord, sale: SaleRequest, fill: SwapFill, solUsd: Big): SettleOutcome<SaleSettled>;
}
