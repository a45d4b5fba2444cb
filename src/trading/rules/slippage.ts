// Slippage (PRODUCT.md §4): a trade asking for more than `slippage.maxBps` is refused; the engine
// throws `new TradingError(SLIPPAGE_EXCEEDED_MESSAGE, refusal.details)` (400). Exactly maxBps is allowed.

import type { SlippageSettings } from "./types.ts";

export const SLIPPAGE_EXCEEDED_MESSAGE = "Slippage exceeds maximum allowed";

export type SlippageCheck =
  | { ok: true; bps: number }
  | { ok: false; message: typeof SLIPPAGE_EXCEEDED_MESSAGE; details: { requested: number; maximum: number } };

/** The slippage a trade uses: the one requested, else `slippage.defaultBps`. */
export const resolveSlippageBps = (requestedBps: number | null | undefined, settings: SlippageSettings): number =>
  requestedBps ?? settings.defaultBps;

export function checkSlippage(requestedBps: number, settings: Pick<SlippageSettings, "maxBps">): SlippageCheck {
  if (requestedBps > settings.maxBps) {
    return {
      ok: false,
      message: SLIPPAGE_EXCEEDED_MESSAGE,
      details: { requested: requestedBps, maximum: settings.maxBps },
    };
  }
  return { ok: true, bps: requestedBps };
}

/**
 * How far below the expected output at an independent price a live fill may land (bps; the floor,
 * src/trading/live/floor.ts): a stop-loss or stale exit uses `maxExitBps`, else `maxBps` (it must
 * get out); entries, DCA, take-profit and other sales use `defaultBps`.
 */
export function floorBpsFor(
  reason: "manual" | "stop_loss" | "stale_trade" | "take_profit" | "signal" | "entry" | null,
  settings: { defaultBps: number; maxBps: number; maxExitBps: number | null },
): number {
  if (reason === "stop_loss" || reason === "stale_trade") return settings.maxExitBps ?? settings.maxBps;
  return settings.defaultBps;
}

/**
 * The price-impact cap of a sale, so exits never stall: a stop-loss or stale-trade exit uses
 * `slippage.maxExitBps` (null = no cap: a collapsing thin token must still be sold); any other
 * sale keeps the entry cap `slippage.maxBps`.
 */
export function exitImpactCapBps(
  reason: "manual" | "stop_loss" | "stale_trade" | "take_profit" | "signal" | null,
  settings: { maxBps: number; maxExitBps: number | null },
): number | null {
  if (reason === "stop_loss" || reason === "stale_trade") return settings.maxExitBps;
  return settings.maxBps;
}
