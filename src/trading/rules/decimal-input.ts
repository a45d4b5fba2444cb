// Conversion of rule inputs to Big, and the roundings the rules share (STYLE.md "Money").

import { Big, SOL_DECIMALS } from "../../money.ts";
import type { DecimalInput } from "./types.ts";

export const big = (v: DecimalInput): Big => (v instanceof Big ? v : new Big(v));

/** SOL amounts are whole lamports: 9 decimals, rounded down so a trade never exceeds its budget. */
export const roundLamports = (v: Big): Big => v.round(SOL_DECIMALS, Big.roundDown);

/** Token amounts are whole atomic units of the token, rounded down. */
export const roundTokens = (v: Big, decimals: number): Big => v.round(decimals, Big.roundDown);

/** `part / whole × 100`, or 0 when `whole` is zero (no cost, no entry price). */
export function percentOf(part: Big, whole: Big): Big {
  return whole.eq(0) ? new Big(0) : part.div(whole).times(100);
}

export const HUNDRED = new Big(100);
