// Stale trade (PRODUCT.md §4): a position older than `filters.maxPositionAgeDays` closes with
// closeReason `stale_trade`. Age is measured from the opening buy; exactly at the limit is not yet
// stale (the rule says "age >"). null disables the rule. Fractional days are allowed.

import { big } from "./decimal-input.ts";
import type { DecimalInput, FilterSettings } from "./types.ts";

export const MS_PER_DAY = 86_400_000;

export type StaleDecision = { stale: false } | { stale: true; ageMs: number; maxAgeMs: number };

export function evaluateStale(
  filters: Pick<FilterSettings, "maxPositionAgeDays">,
  openedAtMs: number,
  nowMs: number,
): StaleDecision {
  const maxDays: DecimalInput | null = filters.maxPositionAgeDays;
  if (maxDays === null) return { stale: false };
  const ageMs = nowMs - openedAtMs;
  const maxAge = big(maxDays).times(MS_PER_DAY);
  return big(ageMs).gt(maxAge) ? { stale: true, ageMs, maxAgeMs: Number(maxAge.toFixed(0)) } : { stale: false };
}
