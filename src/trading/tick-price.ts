import { Big, decStr } from "../money.ts";
import { type ScreenPrice, screenPrice } from "./rules/quick-screen.ts";

// A token's price as one monitor tick uses it, computed once per token (10,000 positions share
// 500 tokens): exact in SOL for the rules that fire, a double for the screen in front of them
// (rules/quick-screen.ts), and the decimal texts every position row of the token stores.

export interface TokenTickPrice {
  priceSol: Big;
  /** The screen's view of priceSol. */
  screen: ScreenPrice;
  /** decStr(priceSol): stored as last_price_sol, and as peak_price_sol when the price is the new peak. */
  sol: string;
  usd: string;
}

export function tickPrice(usd: string, solUsd: Big): TokenTickPrice {
  const priceUsd = new Big(usd);
  const priceSol = priceUsd.div(solUsd);
  const screen = screenPrice(priceSol);
  return { priceSol, screen, sol: screen.text ?? decStr(priceSol), usd: decStr(priceUsd, 12) };
}

// decStr's own output: no exponent, no leading or trailing zeros, at most 18 decimals.
const CANONICAL = /^(0|[1-9]\d*)(\.\d{0,17}[1-9])?$/;

/** decStr(v) without the Big round trip when `v` is already in that form (a stored peak, almost always). */
export const canonicalDecimal = (v: string): string => (CANONICAL.test(v) ? v : decStr(v));

/** A tick price from a price in SOL (a sell quote); the USD text is priceSol × the last SOL/USD known. */
export function tickPriceFromSol(priceSol: Big, solUsd: Big): TokenTickPrice {
  const screen = screenPrice(priceSol);
  return { priceSol, screen, sol: screen.text ?? decStr(priceSol), usd: decStr(priceSol.times(solUsd), 12) };
}
