// Simulation fees (PRODUCT.md §4): every simulated swap is charged the network's base fee of
// 0.000005 SOL plus SIMULATION_PRIORITY_FEE_SOL, so paper results are not better than live ones.

import { Big } from "../../money.ts";
import { big } from "./decimal-input.ts";
import type { DecimalInput } from "./types.ts";

/** Solana's base fee for one signature (5000 lamports). */
export const SIMULATION_NETWORK_FEE_SOL = "0.000005";

/** SOL charged for one simulated swap (a buy or a sell). */
export function simulationSwapFeeSol(priorityFeeSol: DecimalInput): Big {
  return new Big(SIMULATION_NETWORK_FEE_SOL).plus(big(priorityFeeSol));
}
