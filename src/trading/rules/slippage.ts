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
