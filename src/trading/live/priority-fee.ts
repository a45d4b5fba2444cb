import type { Config } from "../../config.ts";
import type { RpcCaller } from "../../market/mint-info.ts";
import { priorityFeeCapForTrade } from "../rules/fees.ts";

// The priority fee of a transaction this service assembles (Swap API v2 /build): read
// getRecentPrioritizationFees over the accounts the swap write-locks (the fee that competes for
// those locks, https://solana.com/docs/rpc/http/getrecentprioritizationfees), take a percentile of
// the per-slot values, and cap what it costs the wallet at the lower of LIVE_PRIORITY_FEE_MAX
// lamports and LIVE_PRIORITY_FEE_MAX_BPS of the trade's SOL (capForTrade: a small trade is not
// charged a large trade's fee, whatever the node or the route's accounts say). The
// price is micro-lamports per compute unit; the cost is price × compute-unit limit, rounded up
// as the runtime charges it (inspection-rules.ts transactionFee), and is what `fees` records.

/** The node accepts at most this many addresses. */
export const MAX_FEE_ACCOUNTS = 128;

export interface PriorityFeeSetting {
  /** 0–100: 75 pays what three slots in four needed for these accounts. */
  percentile: number;
  /** Most the priority fee may cost per transaction, lamports. */
  maxLamports: bigint;
  /** Most it may cost relative to the trade, basis points of its SOL (capForTrade). */
  maxBps: number;
  computeUnitLimit: number;
}

/** The live model's setting from the configuration (the live build path and simulated fills). */
export function priorityFeeSettingOf(
  c: Pick<
    Config,
    "LIVE_PRIORITY_FEE_PERCENTILE" | "LIVE_PRIORITY_FEE_MAX" | "LIVE_PRIORITY_FEE_MAX_BPS" | "LIVE_COMPUTE_UNIT_LIMIT"
  >,
): PriorityFeeSetting {
  return {
    percentile: c.LIVE_PRIORITY_FEE_PERCENTILE,
    maxLamports: BigInt(c.LIVE_PRIORITY_FEE_MAX),
    maxBps: c.LIVE_PRIORITY_FEE_MAX_BPS,
    computeUnitLimit: c.LIVE_COMPUTE_UNIT_LIMIT,
  };
}

/**
 * The setting for one trade of `tradeLamports` SOL (a buy's input, a sale's least output): its cap
 * is the lower of the absolute one and maxBps of the trade, rounded down to whole lamports.
 */
export function capForTrade(setting: PriorityFeeSetting, tradeLamports: bigint): PriorityFeeSetting {
  const cap = priorityFeeCapForTrade(setting.maxLamports, setting.maxBps, tradeLamports);
  return cap < setting.maxLamports ? { ...setting, maxLamports: cap } : setting;
}

export interface PriorityFee {
  microLamportsPerUnit: bigint;
  /** What the price costs at the compute-unit limit (the runtime's rounding). */
  lamports: bigint;
  /** The percentile's price was above the cap and was lowered to it. */
  capped: boolean;
  /** Slots the estimate is drawn from (0: the node reported none; the price is then 0). */
  samples: number;
}

/** Nearest-rank percentile of the per-slot fees (0 without samples). */
export function percentileOf(values: readonly bigint[], percentile: number): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const p = Math.min(100, Math.max(0, percentile));
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export const feeLamports = (microLamportsPerUnit: bigint, computeUnitLimit: number): bigint =>
  (microLamportsPerUnit * BigInt(computeUnitLimit) + 999_999n) / 1_000_000n;

/** The price for `samples` under the setting: the percentile, lowered so it costs at most the cap. */
export function priorityFeeFrom(samples: readonly bigint[], setting: PriorityFeeSetting): PriorityFee {
  const wanted = percentileOf(samples, setting.percentile);
  const limit = BigInt(setting.computeUnitLimit);
  // Largest price whose rounded-up cost stays within the cap.
  const ceiling = limit === 0n ? 0n : (setting.maxLamports * 1_000_000n) / limit;
  const micro = wanted > ceiling ? ceiling : wanted;
  return {
    microLamportsPerUnit: micro,
    lamports: feeLamports(micro, setting.computeUnitLimit),
    capped: wanted > ceiling,
    samples: samples.length,
  };
}

/** The node's per-slot fees for these write-locked accounts (the first 128). */
export async function recentPrioritizationFees(rpc: RpcCaller, writable: readonly string[]): Promise<bigint[]> {
  const accounts = [...new Set(writable)].slice(0, MAX_FEE_ACCOUNTS);
  const r = await rpc.call<unknown>("getRecentPrioritizationFees", [accounts]);
  if (!Array.isArray(r)) throw new Error("getRecentPrioritizationFees answered without a list");
  const out: bigint[] = [];
  for (const e of r) {
    const fee = (e as { prioritizationFee?: unknown } | null)?.prioritizationFee;
    if (typeof fee !== "number" || !Number.isSafeInteger(fee) || fee < 0)
      throw new Error("getRecentPrioritizationFees answered an entry without a whole prioritizationFee");
    out.push(BigInt(fee));
  }
  return out;
}

/** Reads the recent fees over the swap's writable accounts and prices the transaction. */
export async function estimatePriorityFee(
  rpc: RpcCaller,
  writable: readonly string[],
  setting: PriorityFeeSetting,
): Promise<PriorityFee> {
  return priorityFeeFrom(await recentPrioritizationFees(rpc, writable), setting);
}
