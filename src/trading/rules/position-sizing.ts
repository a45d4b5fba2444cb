// Position size (PRODUCT.md §4): `percentage` of the current SOL balance, or `fixedAmountSol`.
// Exact decimals, rounded DOWN to whole lamports so the trade never exceeds its budget.

import { Big } from "../../money.ts";
import { big, HUNDRED, roundLamports } from "./decimal-input.ts";
import type { DecimalInput, PositionSizingSettings } from "./types.ts";

/**
 * SOL to spend on an entry. A `fixed` sizing without an amount (which configuration validation
 * refuses) sizes 0, which eligibility then refuses as rule `trade_size`.
 */
export function positionSizeSol(sizing: PositionSizingSettings, solBalance: DecimalInput): Big {
  if (sizing.type === "fixed") {
    return sizing.fixedAmountSol === null ? new Big(0) : roundLamports(big(sizing.fixedAmountSol));
  }
  return roundLamports(big(solBalance).times(big(sizing.percentage)).div(HUNDRED));
}
