// The monitor's common case, screened in floating point (docs/decisions.md
// "Performance", "Monitor tick"): most ticks fire no rule for most positions, and deciding that with
// big.js for 10,000 positions cost more than the whole rest of a tick's arithmetic.
//
// screenPosition answers only "no rule fires, and the peak is the price / the stored peak" when
// every comparison is beyond doubt in doubles; anything else (too close to call, a non-finite or
// tiny input, a rule that may fire) is `null`, and the caller decides with decidePositionAction,
// whose exact answer is the rule. A double parsed from a decimal string, and each of the few
// operations below, is within 2^-53 (≈ 1.1e-16) of the exact value; MARGIN (1e-9 relative) is
// millions of times that, so a comparison decided outside it is the one the exact rule makes. The
// guards keep that true: no subtraction that cancels (a factor 100 − x within 1e-4 of zero), no
// value under 1e-15 (big.js divides to 30 decimals, so its quotients may differ from exact by
// 1e-30).

import { type Big, decStr } from "../../money.ts";
import { big } from "./decimal-input.ts";
import type { DecimalInput, PositionRulesConfig } from "./types.ts";

const MARGIN = 1e-9;
const TINY = 1e-15;
const NEAR_ZERO_FACTOR = 1e-4;
const MS_PER_DAY = 86_400_000;

/** What the screen reads of a position: its stored columns (parsed only when a rule needs them). */
export interface ScreenPosition {
  peakPriceSol: DecimalInput;
  entryPriceSol: DecimalInput;
  remainingAmount: DecimalInput;
  levelsHit: number;
  moonBagActivated: boolean;
  dcaOrders: number;
  /** ISO time of the opening buy. */
  openedAt: string;
}

/** The tick's price of the token, prepared once per token by the caller. */
export interface ScreenPrice {
  exact: Big;
  /** `exact` as the nearest double. */
  approx: number;
  /** decStr(exact) when that is exactly `exact` (18 decimals or fewer), else null. */
  text: string | null;
}

export function screenPrice(exact: Big): ScreenPrice {
  const text = decStr(exact);
  return { exact, approx: Number(exact.toString()), text: exact.eq(text) ? text : null };
}

/** "price": no rule fires and the new peak is the price; "kept": no rule fires, peak unchanged. */
export type Screen = "price" | "kept" | null;

const num = (v: DecimalInput): number => (typeof v === "number" ? v : Number(String(v)));

/** -1 / 1 when a is below / above b beyond doubt, 0 when too close (or not comparable) in doubles. */
function compare(a: number, b: number): -1 | 0 | 1 {
  if (!(Math.abs(a) >= TINY && Math.abs(b) >= TINY && Number.isFinite(a) && Number.isFinite(b))) return 0;
  const tolerance = MARGIN * Math.max(Math.abs(a), Math.abs(b));
  if (a < b - tolerance) return -1;
  if (a > b + tolerance) return 1;
  return 0;
}

/** 100 − x, or NaN when it is near enough to zero for the subtraction to have cancelled. */
function hundredMinus(x: number): number {
  const f = 100 - x;
  return Math.abs(f) < NEAR_ZERO_FACTOR ? Number.NaN : f;
}

export function screenPosition(
  config: PositionRulesConfig,
  position: ScreenPosition,
  price: ScreenPrice,
  nowMs: number,
): Screen {
  const priceSol = price.approx;
  const storedPeak = num(position.peakPriceSol);
  if (!Number.isFinite(storedPeak) || !Number.isFinite(priceSol)) return null;
  // The peak is decided exactly: a price back at its peak (the same price as when the peak was
  // set, common tick after tick) is too close to call in doubles. The stored peak is decStr text,
  // so equal text is an equal value when the price's own text is exact.
  let priceVsPeak = compare(priceSol, storedPeak);
  if (priceVsPeak === 0)
    priceVsPeak =
      price.text !== null && price.text === position.peakPriceSol ? 0 : price.exact.cmp(big(position.peakPriceSol));
  const raised = priceVsPeak > 0;
  const peak = raised ? priceSol : storedPeak;

  const maxDays = config.filters.maxPositionAgeDays;
  if (maxDays !== null) {
    // stale when age > maxDays days: it must be clearly below
    if (compare(nowMs - Date.parse(position.openedAt), num(maxDays) * MS_PER_DAY) !== -1) return null;
  }

  const stop = config.stopLoss;
  if (stop.enabled) {
    const stopPrice = (peak * hundredMinus(num(stop.percentage))) / 100;
    // fires at price ≤ stop price: it must be clearly above
    if (compare(priceSol, stopPrice) !== 1) return null;
  }

  const tp = config.takeProfit;
  const moonBag = position.moonBagActivated;
  if (tp.enabled && !moonBag && position.levelsHit < tp.maxLevels) {
    if (!(num(position.remainingAmount) > 0)) return null;
    const level = position.levelsHit + 1;
    const levelPrice = (num(position.entryPriceSol) * (100 + num(tp.percentage) * level)) / 100;
    // reached at price ≥ level price: it must be clearly below
    if (compare(priceSol, levelPrice) !== -1) return null;
  }

  const dca = config.dca;
  const order = position.dcaOrders + 1;
  if (dca.enabled && !moonBag && order <= dca.maxOrders) {
    const factor = hundredMinus(num(dca.priceDropTriggerPercentage) * order);
    if (Number.isNaN(factor)) return null;
    // a trigger price ≤ 0 never fires (a positive entry is needed to know its sign)
    if (factor > 0) {
      const trigger = (num(position.entryPriceSol) * factor) / 100;
      // fires at price ≤ trigger: it must be clearly above
      if (compare(priceSol, trigger) !== 1) return null;
    } else if (!(num(position.entryPriceSol) > 0)) return null;
  }

  return raised ? "price" : "kept";
}
