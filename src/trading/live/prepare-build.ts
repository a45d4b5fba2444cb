import type { JitoClient } from "../../market/jito.ts";
import type { JupiterSwapV2Client } from "../../market/jupiter-swap-v2.ts";
import type { RpcCaller } from "../../market/mint-info.ts";
import type { SwapRequest } from "../executor.ts";
import { prepareBuildSwap, writableAccounts } from "./build-assembly.ts";
import {
  BASE_FEE_LAMPORTS,
  judgeLiveQuote,
  logContext,
  type PrepareDeps,
  type PreparedSwap,
  quoteRequestOf,
  referencePrice,
} from "./prepare-swap.ts";
import { estimatePriorityFee, feeLamports } from "./priority-fee.ts";
import { SwapRefusedError } from "./transaction-inspector.ts";

// A live swap on Swap API v2 `/build` (SWAP_API=build) up to the moment the key would touch it:
// our reference price, /build's quote judged against our floor exactly as a v1 quote is
// (judgeLiveQuote), our priority fee from getRecentPrioritizationFees over the route's writable
// accounts (priority-fee.ts), the transaction assembled here with our compute-unit limit and an
// optional Jito tip, inspected instruction by instruction and by simulation (build-assembly.ts),
// and OUR blockhash put in it last (the freshest, as the v1 path does). Nothing is signed here.

/** A valid base58 blockhash (32 zero bytes) the message is compiled with until ours is read. */
const PLACEHOLDER_BLOCKHASH = "11111111111111111111111111111111";

export interface JitoSending {
  client: Pick<JitoClient, "tipAccounts" | "tipAccount" | "sendBundle">;
  /** JITO_TIP_LAMPORTS: the tip each swap pays, and the most the inspection lets it pay. */
  tipLamports: number;
  /** Which tip account (0 ≤ pick < 1); default Math.random, as Jito asks, to spread write locks. */
  pick?: () => number;
}

/** SWAP_API=build: the v2 client and the fee settings of a transaction assembled here. */
export interface BuildSettings {
  v2: Pick<JupiterSwapV2Client, "build">;
  /** getRecentPrioritizationFees. */
  rpc: RpcCaller;
  /** LIVE_PRIORITY_FEE_PERCENTILE. */
  percentile: number;
  /** LIVE_PRIORITY_FEE_MAX (lamports per transaction). */
  maxPriorityFeeLamports: number;
  /** LIVE_COMPUTE_UNIT_LIMIT. */
  computeUnitLimit: number;
  /** JITO_BLOCK_ENGINE_URL set: the swap carries a tip and goes out as a bundle. */
  jito: JitoSending | null;
}

export type PrepareBuildDeps = Omit<PrepareDeps, "quotes"> & { build: BuildSettings };

/**
 * The micro-lamport price: the estimate (capped by LIVE_PRIORITY_FEE_MAX), raised for a re-sent
 * exit so it costs at least `minLamports` (exit-fees.ts: already capped by LIVE_EXIT_PRIORITY_FEE_MAX).
 */
export function exitPrice(estimated: bigint, minLamports: number | null, computeUnitLimit: number): bigint {
  if (minLamports === null || computeUnitLimit <= 0) return estimated;
  const floor = (BigInt(Math.max(0, Math.floor(minLamports))) * 1_000_000n) / BigInt(computeUnitLimit);
  return floor > estimated ? floor : estimated;
}

/** `minPriorityLamports`: null for a first attempt; a re-sent exit's stepped-up fee otherwise. */
export async function prepareBuild(
  d: PrepareBuildDeps,
  req: SwapRequest,
  minPriorityLamports: number | null,
): Promise<PreparedSwap> {
  const s = d.build;
  const ref = await referencePrice(d.prices, req);
  const { quote, build } = await s.v2.build(quoteRequestOf(req), req.walletAddress);
  const floor = await judgeLiveQuote(d, req, quote, ref);

  const estimate = await estimatePriorityFee(s.rpc, writableAccounts(build), {
    percentile: s.percentile,
    maxLamports: BigInt(s.maxPriorityFeeLamports),
    computeUnitLimit: s.computeUnitLimit,
  });
  const micro = exitPrice(estimate.microLamportsPerUnit, minPriorityLamports, s.computeUnitLimit);
  const priorityLamports = feeLamports(micro, s.computeUnitLimit);
  const tip = s.jito ? await jitoTip(s.jito) : undefined;
  let prepared: Awaited<ReturnType<typeof prepareBuildSwap>>;
  try {
    prepared = await prepareBuildSwap(
      { chain: d.inspector },
      {
        build,
        taker: req.walletAddress,
        intent: {
          side: req.side === "BUY" ? "buy" : "sell",
          mint: req.tokenMint,
          inAmount: req.amountAtomic,
          minOutAmount: floor.minOutAtomic,
        },
        blockhash: PLACEHOLDER_BLOCKHASH,
        computeUnitLimit: s.computeUnitLimit,
        microLamportsPerUnit: micro,
        allowedPrograms: d.allowedPrograms,
        tip,
        maxFeeLamports: BASE_FEE_LAMPORTS + priorityLamports,
      },
    );
  } catch (err) {
    if (err instanceof SwapRefusedError)
      d.log.warn("live swap refused before signing; nothing sent", {
        ...logContext(req),
        check: err.check,
        reason: err.message,
      });
    throw err;
  }
  d.log.info("live swap assembled", {
    ...logContext(req),
    microLamportsPerUnit: micro.toString(),
    priorityFeeLamports: priorityLamports.toString(),
    priorityFeeSamples: estimate.samples,
    priorityFeeCapped: estimate.capped,
    tipLamports: tip?.lamports.toString() ?? "0",
  });
  const tx = prepared.transaction;
  const blockhash = await d.sender.latestBlockhash();
  tx.message.recentBlockhash = blockhash.blockhash;
  const jito = s.jito;
  return {
    quote,
    floor,
    tx,
    blockhash,
    priorityFeeCapLamports: Number(priorityLamports),
    reportedPriorityFeeLamports: Number(priorityLamports),
    tipLamports: tip?.lamports ?? 0n,
    send: jito ? (signed) => jito.client.sendBundle([signed]) : undefined,
  };
}

async function jitoTip(j: JitoSending) {
  const lamports = BigInt(j.tipLamports);
  return {
    account: await j.client.tipAccount((j.pick ?? Math.random)()),
    lamports,
    tipAccounts: new Set(await j.client.tipAccounts()),
    maxTipLamports: lamports,
  };
}
