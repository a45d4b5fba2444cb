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
  // big.js keeps no trailing zeros in a value, so its normal notation is already canonical; the
  // text of a value that rounds to zero keeps its sign ("-0"), as the padded form did.
  return (v instanceof Big ? v : new Big(v)).round(dp, Big.roundDown).toFixed();
}

/** A number for API fields typed number (positions, close response); display only. */
export const decNum = (v: Big | string): number => Number(new Big(v).toPrecision(15));

/** Whole-token decimal amount → atomic units (rounded down). */
export function toAtomic(amount: Big | string, decimals: number): bigint {
  return BigInt(new Big(amount).times(new Big(10).pow(decimals)).round(0, Big.roundDown).toFixed(0));
}

/** Atomic units → whole-token decimal. */
export function fromAtomic(atomic: bigint | string, decimals: number): Big {
  // Moving the decimal point in the integer's digits is the division by 10^decimals, exactly,
  // without big.js's long division (one per amount of every trade).
  const digits = atomic.toString();
  if (!Number.isInteger(decimals) || decimals < 0 || !/^-?\d+$/.test(digits))
    return new Big(digits).div(new Big(10).pow(decimals));
  if (decimals === 0) return new Big(digits);
  const negative = digits.startsWith("-");
  const padded = (negative ? digits.slice(1) : digits).padStart(decimals + 1, "0");
  const text = `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
  return new Big(negative ? `-${text}` : text);
}

export const isDecimalString = (v: string): boolean => /^-?\d+(\.\d+)?$/.test(v);
