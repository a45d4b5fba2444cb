import type { Big } from "../money.ts";
import type { TokenScreeningFilters } from "./rules/token-screening.ts";
import type { CloseReason, TradingMode } from "./rules/types.ts";
import type { SharedQuotes } from "./signal-quotes.ts";

// The seam between the engine and the market: the engine decides WHAT to
// trade and records the outcome; an executor performs the swap. The simulation executor fills at
// the aggregator's real quote; the live executor signs and sends the
// aggregator's transaction. Nothing else in the engine differs between the two modes.

export interface SwapRequest {
  agentId: string;
  walletAddress: string;
  side: "BUY" | "SELL";
  /** The token bought or sold against SOL. */
  tokenMint: string;
  tokenDecimals: number;
  /** Input amount in atomic units: lamports for a BUY, token units for a SELL. */
  amountAtomic: bigint;
  slippageBps: number;
  /** slippage.maxBps: the most slippage a swap may ask for (bps). */
  maxBps: number;
  /**
   * Refuse the fill when the quote's price impact exceeds this (bps); default maxBps. null: no
   * cap (a stop-loss or stale exit with slippage.maxExitBps null must be able to get out).
   */
  maxImpactBps?: number | null;
  /**
   * Refuse the fill when the quote's output (atomic units) is below this: a take-profit sale's
   * price floor (the level's price less slippage), so a sale decided at +60 % is not made at −15 %.
   */
  minOutputAtomic?: bigint;
  /**
   * Live: how far below the expected output at an independent price a fill may be (bps; our
   * floor, live/floor.ts). Default slippageBps; stop-loss and stale exits: maxExitBps ?? maxBps.
   */
  floorBps?: number;
  /** Live: SOL per whole token the service recorded, used when the Price API cannot price the token. */
  referencePriceSol?: Big;
  /** Screen the token before this buy (signal buys): the agent's filters. */
  screening?: TokenScreeningFilters;
  /** What the swap is for: journaled with a live swap BEFORE it is sent (crash recovery). */
  intent?: LiveIntent;
  /**
   * Quotes shared by the trades of one signal (simulation only): identical requests of agents
   * acting on the same signal at the same moment get the same fill.
   */
  sharedQuotes?: SharedQuotes;
}

/**
 * What a pending live swap was for: how the reconciler settles it once the chain has spoken
 * (live/journal.ts). Part of the request, so it stands with it: the journal imports it from here.
 */
export type LiveIntent =
  | { kind: "open"; userId: string; signalId: number; symbol: string }
  | { kind: "dca"; positionId: string; order: number }
  | {
      kind: "take_profit";
      positionId: string;
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: string | null;
      closesPosition: boolean;
    }
  | { kind: "close"; positionId: string; reason: CloseReason; signalId?: number }
  /** A manual part of a position: keyed by its own manual signal, never by a take-profit level. */
  | { kind: "manual_sale"; positionId: string; signalId: number; percent: string };

export interface SwapFill {
  /** Atomic amounts actually swapped (input) and received (output). */
  inputAtomic: bigint;
  outputAtomic: bigint;
  /** SOL charged on top of the swap (network + priority fee); never token-account rent. */
  feesSol: Big;
  /**
   * Live: token-account rent the swap transaction itself paid (it created the mint's account) or
   * got back (it closed one), read from the chain. The simulation settlement works its rent out
   * from the ledger instead. Absent: none.
   */
  rentDepositSol?: Big;
  rentRefundSol?: Big;
  routes: string[];
  /** Price impact as a fraction (0.0123 = 1.23 %). */
  priceImpactPct: string;
  slippageBps: number;
  /** Transaction signature (live) or a simulation id. */
  txHash: string;
  /**
   * confirmed: the swap happened. pending (live only): sent, outcome unknown; the engine records
   * a pending trade and reconciles it by signature, never sending it again.
   */
  status: "confirmed" | "pending";
  /**
   * Simulation: the mint's token account is never closed (a Token-2022 transfer fee), so a sale
   * that empties it returns no rent (rules/fees.ts closesTokenAccount). Absent: it is closed.
   */
  keepsTokenAccount?: boolean;
}

export interface TradeExecutor {
  readonly mode: TradingMode;
  swap(req: SwapRequest): Promise<SwapFill>;
}
