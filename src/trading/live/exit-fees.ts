import type { LiveIntent } from "../executor.ts";

// Exits that land (docs/decisions.md "Live safety"): a stop-loss or stale-trade exit that did not
// land before its blockhash expired (proven: outcome.ts) is re-quoted and re-sent with a higher
// priority fee, doubling from the last attempt's up to LIVE_EXIT_PRIORITY_FEE_MAX (v1: the cap of
// Jupiter's estimate; build: the fee itself, at least the doubled one, prepare-build.ts). Every
// other swap keeps the regular fee under LIVE_PRIORITY_FEE_MAX. A re-send only ever follows a PROVEN expiry, so two transactions
// of one exit can never both land.

/** The least step up, so a zero or tiny fee still grows. */
const MIN_STEP_LAMPORTS = 10_000;

/** A stop-loss or stale-trade exit: the sales whose fee steps up when congestion delays them. */
export function urgentExit(intent: LiveIntent | undefined): boolean {
  return intent?.kind === "close" && (intent.reason === "stop_loss" || intent.reason === "stale_trade");
}

/** The next attempt's priority fee cap (lamports): double the last one, at most `max`. */
export function nextExitFee(lastLamports: number, max: number): number {
  return Math.min(max, Math.max(lastLamports * 2, lastLamports + MIN_STEP_LAMPORTS));
}
