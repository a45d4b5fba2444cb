import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import type { RpcCaller } from "../market/mint-info.ts";
import type { Quote } from "../market/types.ts";
import { SOL_MINT } from "../money.ts";
import { capForTrade, estimatePriorityFee, type PriorityFeeSetting, writableAccounts } from "./live/index.ts";

// SWAP_API=build with SIMULATION_PRIORITY_FEE_SOL unset: a simulated swap pays the priority fee a
// live swap of the same route pays (docs/decisions.md "Simulation on Swap API v2"): the live
// model's percentile of getRecentPrioritizationFees over the accounts the message compiled from
// the quoted /build route write-locks, capped by the lower of LIVE_PRIORITY_FEE_MAX and
// LIVE_PRIORITY_FEE_MAX_BPS of the trade's SOL (a buy's input; a sale's quoted output, at least
// live's floor, so the simulated cap is never below live's) at LIVE_COMPUTE_UNIT_LIMIT units. An
// answer is kept a few seconds per set of accounts and cap (a signal's fan-out asks once; the
// node's figures span 150 slots, about a minute); when the node cannot say, the fill pays the
// absolute cap, never less.

const KEEP_MS = 5_000;
const MAX_KEPT = 1_000;

export type RouteFeeEstimate = (
  quote: Pick<Quote, "raw" | "inputMint" | "inAmount" | "outAmount">,
) => Promise<number | null>;

export function routePriorityFeeEstimate(d: {
  rpc: RpcCaller;
  clock: Pick<Clock, "now">;
  setting: PriorityFeeSetting;
  /** The taker simulated /build quotes name (SWAP_QUOTE_TAKER): the compiled message's payer. */
  taker: string;
  logger: Logger;
}): RouteFeeEstimate {
  const kept = new Map<string, { at: number; lamports: Promise<number | null> }>();
  return (quote) => {
    const writable = writableOfRoute(quote.raw, d.taker);
    if (!writable) return Promise.resolve(null);
    const setting = capForTrade(d.setting, BigInt(quote.inputMint === SOL_MINT ? quote.inAmount : quote.outAmount));
    const key = `${setting.maxLamports} ${writable.join(",")}`;
    const now = d.clock.now();
    const hit = kept.get(key);
    if (hit && now - hit.at < KEEP_MS) return hit.lamports;
    const lamports = estimatePriorityFee(d.rpc, writable, setting).then(
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
function writableOfRoute(raw: Readonly<Record<string, unknown>>, taker: string): string[] | null {
  if (!raw.swapInstruction || !Array.isArray(raw.setupInstructions)) return null;
  try {
    const writable = writableAccounts(raw as unknown as Parameters<typeof writableAccounts>[0], taker);
    return writable.length > 0 ? writable : null;
  } catch {
    return null; // not a message that compiles: no live swap of it either; the cap is charged
  }
}
