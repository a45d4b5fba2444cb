// What one simulated swap pays in SOL besides its amounts (PRODUCT.md §4), so a
// paper result is never better than the live one would be under the same SWAP_API
// (docs/decisions.md "Simulation on Swap API v2"):
// - the network's base fee (one signature);
// - the priority fee: SIMULATION_PRIORITY_FEE_SOL when the operator set it (their choice wins);
//   else under `build` live's own estimate for the quoted route when a Solana RPC can give it
//   (`estimate`, ../simulation-priority-fee.ts), otherwise what a live swap of that size pays at
//   most: under `build` and `order` the lower of LIVE_PRIORITY_FEE_MAX and LIVE_PRIORITY_FEE_MAX_BPS
//   of the trade's SOL (a buy's input, a sale's quoted output: live caps a sale by its least
//   output, so the simulated cap is never the lower one), under `v1` LIVE_PRIORITY_FEE_MAX alone
//   (live applies no relative cap there), and under `order` at least the priority fee the
//   order's own transaction names (issue 44 item 1: a 0.01 SOL buy was charged the 0.001 SOL cap);
// - under `build` with JITO_BLOCK_ENGINE_URL set, the Jito tip every live swap then carries (Jito
//   is build mode's only: an order is landed by Jupiter, a v1 swap sent as it comes).
// Jupiter's /order fee is not charged here: it is already out of the order's outAmount.

import type { Config } from "../../config.ts";
import type { Quote } from "../../market/types.ts";
import { Big, SOL_MINT } from "../../money.ts";
import { priorityFeeCapForTrade, SIMULATION_NETWORK_FEE_SOL } from "./fees.ts";

const LAMPORTS_PER_SOL = 1_000_000_000;

export interface SimulationFeeModel {
  /** Priority fee charged on every simulated swap (lamports). */
  priorityFeeLamports: number;
  /** SWAP_API=order without an explicit fee: an order whose own transaction pays more is charged that. */
  orderPriorityFee: boolean;
  /** Basis points of the trade's SOL the priority fee may cost (live's relative cap); absent: none. */
  maxBps?: number;
  /** Jito tip per swap (lamports); 0 when live swaps are not sent as bundles. */
  tipLamports: number;
  /**
   * SWAP_API=build without an explicit fee, with a Solana RPC: the live estimate for the quoted
   * route (lamports), charged instead of the cap; null when it cannot be had (the cap is charged).
   */
  estimate?: (quote: Quote) => Promise<number | null>;
}

export type SimulationFeeConfig = Pick<
  Config,
  | "SIMULATION_PRIORITY_FEE_SOL"
  | "SWAP_API"
  | "LIVE_PRIORITY_FEE_MAX"
  | "LIVE_PRIORITY_FEE_MAX_BPS"
  | "JITO_BLOCK_ENGINE_URL"
  | "JITO_TIP_LAMPORTS"
>;

/** The fee model of every simulated swap under this configuration. */
export function simulationFeeModel(
  config: SimulationFeeConfig,
  estimate?: SimulationFeeModel["estimate"],
): SimulationFeeModel {
  const explicit = config.SIMULATION_PRIORITY_FEE_SOL;
  const tipLamports = config.SWAP_API === "build" && config.JITO_BLOCK_ENGINE_URL ? config.JITO_TIP_LAMPORTS : 0;
  if (explicit !== undefined) {
    // Rounded up to whole lamports: never less than the operator asked for.
    const lamports = Number(new Big(explicit).times(LAMPORTS_PER_SOL).round(0, Big.roundUp).toFixed(0));
    return { priorityFeeLamports: lamports, orderPriorityFee: false, tipLamports };
  }
  const cap = config.LIVE_PRIORITY_FEE_MAX;
  return {
    priorityFeeLamports: cap,
    orderPriorityFee: config.SWAP_API === "order",
    ...(config.SWAP_API === "v1" ? {} : { maxBps: config.LIVE_PRIORITY_FEE_MAX_BPS }),
    tipLamports,
    ...(estimate && config.SWAP_API === "build" ? { estimate } : {}),
  };
}

/**
 * Lamports of priority fee and tip one simulated swap pays, given the quote it fills at and the
 * live estimate for its route when the model has one (null or absent: the cap).
 */
export function simulatedPriorityLamports(
  model: SimulationFeeModel,
  quote?: FeeQuote,
  estimated?: number | null,
): number {
  if (estimated !== undefined && estimated !== null) return estimated + model.tipLamports;
  const ordered = model.orderPriorityFee ? (quote?.order?.prioritizationFeeLamports ?? 0) : 0;
  return Math.max(capOfTrade(model, quote), ordered) + model.tipLamports;
}

type FeeQuote = Partial<Pick<Quote, "inputMint" | "inAmount" | "outAmount">> & Pick<Quote, "order">;

/** The absolute cap, lowered to maxBps of the trade's SOL when the quote says how much that is. */
function capOfTrade(model: SimulationFeeModel, quote?: FeeQuote): number {
  if (model.maxBps === undefined || !quote?.inputMint) return model.priorityFeeLamports;
  const sol = quote.inputMint === SOL_MINT ? quote.inAmount : quote.outAmount;
  if (sol === undefined || !/^\d+$/.test(sol)) return model.priorityFeeLamports;
  return Number(priorityFeeCapForTrade(BigInt(model.priorityFeeLamports), model.maxBps, BigInt(sol)));
}

/** SOL charged for one simulated swap: the base fee plus simulatedPriorityLamports. */
export function simulatedSwapFeeSol(model: SimulationFeeModel, quote?: FeeQuote, estimated?: number | null): Big {
  return new Big(SIMULATION_NETWORK_FEE_SOL).plus(
    new Big(simulatedPriorityLamports(model, quote, estimated)).div(LAMPORTS_PER_SOL),
  );
}

/** The per-swap priority fee and tip in SOL where no quote is at hand (backtests replay prices). */
export function flatSimulationPriorityFeeSol(config: SimulationFeeConfig): number {
  return Number(new Big(simulatedPriorityLamports(simulationFeeModel(config))).div(LAMPORTS_PER_SOL).toFixed(9));
}
