import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import type { RpcCaller } from "../market/mint-info.ts";
import type { Quote } from "../market/types.ts";
import { writableAccounts } from "./live/build-assembly.ts";
import { estimatePriorityFee, type PriorityFeeSetting } from "./live/priority-fee.ts";

// SWAP_API=build with SIMULATION_PRIORITY_FEE_SOL unset: a simulated swap pays the priority fee a
// live swap of the same route pays (docs/decisions.md "Simulation on Swap API v2"): the live
// model's percentile of getRecentPrioritizationFees over the accounts the quoted /build route
// write-locks, capped by LIVE_PRIORITY_FEE_MAX at LIVE_COMPUTE_UNIT_LIMIT units. An answer is kept
// a few seconds per set of accounts (a signal's fan-out asks once; the node's figures span 150
// slots, about a minute); when the node cannot say, the fill pays the cap, never less.

const KEEP_MS = 5_000;
const MAX_KEPT = 1_000;

export type RouteFeeEstimate = (quote: Pick<Quote, "raw">) => Promise<number | null>;

export function routePriorityFeeEstimate(d: {
  rpc: RpcCaller;
  clock: Pick<Clock, "now">;
  setting: PriorityFeeSetting;
  logger: Logger;
}): RouteFeeEstimate {
  const kept = new Map<string, { at: number; lamports: Promise<number | null> }>();
  return (quote) => {
    const writable = writableOfRoute(quote.raw);
    if (!writable) return Promise.resolve(null);
    const key = writable.join(",");
    const now = d.clock.now();
    const hit = kept.get(key);
    if (hit && now - hit.at < KEEP_MS) return hit.lamports;
    const lamports = estimatePriorityFee(d.rpc, writable, d.setting).then(
      (fee) => Number(fee.lamports),
      (err: unknown) => {
        d.logger.debug("simulated priority fee: the node gave no estimate; the cap is charged", {
          reason: err instanceof Error ? err.message : String(err),
        });
        return null;
      },
    );
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(key, { at: now, lamports });
    return lamports;
  };
}

/**
 * The accounts a /build answer's route write-locks, as the live assembly counts them
 * (writableAccounts); null for a quote without a route's instructions (/order, v1), whose fill
 * then pays the cap. A /build quote's document was validated by the v2 client before it became
 * a Quote.
 */
function writableOfRoute(raw: Readonly<Record<string, unknown>>): string[] | null {
  if (!raw.swapInstruction || !Array.isArray(raw.setupInstructions)) return null;
  const writable = writableAccounts(raw as unknown as Parameters<typeof writableAccounts>[0]);
  return writable.length > 0 ? writable : null;
}
