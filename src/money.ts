import Big from "big.js";

// Exact decimal arithmetic for amounts and prices (STYLE.md "Money": never add floats for
// balances). Values cross the API as decimal strings; inside, they are Big.

Big.DP = 30; // division precision (decimal places)
Big.RM = Big.roundDown;

export type Decimal = Big;
export { Big };

/** Wrapped SOL: the mint used for SOL balances and as the quote side of every swap. */
export const SOL_MINT = "So11111111111111111111111111111111111111112";
export const SOL_DECIMALS = 9;
export const LAMPORTS_PER_SOL = 1_000_000_000n;

export const dec = (v: string | number | Big): Big => new Big(v);

/** Canonical decimal text: no exponent, no trailing zeros, at most `dp` decimals (rounded down). */
export function decStr(v: Big | string | number, dp = 18): string {
  const b = new Big(v).round(dp, Big.roundDown);
  const s = b.toFixed(dp);
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/** A number for API fields typed number (positions, close response); display only. */
export const decNum = (v: Big | string): number => Number(new Big(v).toPrecision(15));

/** Whole-token decimal amount → atomic units (rounded down). */
export function toAtomic(amount: Big | string, decimals: number): bigint {
  return BigInt(new Big(amount).times(new Big(10).pow(decimals)).round(0, Big.roundDown).toFixed(0));
}

/** Atomic units → whole-token decimal. */
export function fromAtomic(atomic: bigint | string, decimals: number): Big {
  return new Big(atomic.toString()).div(new Big(10).pow(decimals));
}

export const isDecimalString = (v: string): boolean => /^-?\d+(\.\d+)?$/.test(v);
