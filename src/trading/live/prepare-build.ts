import type { AddressLookupTableAccount } from "@solana/web3.js";
import type { JitoClient } from "../../market/jito.ts";
import type { JupiterSwapV2Client } from "../../market/jupiter-swap-v2.ts";
import type { RpcCaller } from "../../market/mint-info.ts";
import type { SwapRequest } from "../executor.ts";
import { together } from "../together.ts";
import { type BuildInstructions, prepareBuildSwap, resolveLookupTables, writableAccounts } from "./build-assembly.ts";
import type { BlockhashRead } from "./chain-reads.ts";
import {
  BASE_FEE_LAMPORTS,
  judgeLiveFloor,
  logContext,
  logQuoted,
  type PrepareDeps,
  type PreparedSwap,
  quoteRequestOf,
  referencePrice,
  screenLiveBuy,
} from "./prepare-swap.ts";
import {
  capForTrade,
  estimatePriorityFee,
  feeLamports,
  type PriorityFee,
  type PriorityFeeSetting,
} from "./priority-fee.ts";
import { SwapRefusedError } from "./transaction-inspector.ts";

// A live swap on Swap API v2 `/build` (SWAP_API=build) up to the moment the key would touch it:
// our reference price, /build's quote judged against our floor exactly as a v1 quote is
// (judgeLiveFloor, then the buy's screening), our priority fee from getRecentPrioritizationFees
// over the route's writable accounts (priority-fee.ts), the transaction assembled here with our
// compute-unit limit, OUR blockhash and an optional Jito tip, inspected instruction by instruction
// and by simulation (build-assembly.ts). Independent reads share a round trip (together.ts:
// docs/decisions.md "Live latency"). Nothing is signed here.

interface JitoSending {
  client: Pick<JitoClient, "tipAccounts" | "tipAccount" | "sendBundle">;
  /**
   * The only accounts a tip may go to (JITO_TIP_ACCOUNTS, else Jito's published mainnet ones): a
   * block engine listing any other is refused before signing, whatever URL it answers from.
   */
  pinned: ReadonlySet<string>;
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
  /** LIVE_PRIORITY_FEE_PERCENTILE, LIVE_PRIORITY_FEE_MAX(_BPS) and LIVE_COMPUTE_UNIT_LIMIT. */
  fee: PriorityFeeSetting;
  /** JITO_BLOCK_ENGINE_URL set: the swap carries a tip and goes out as a bundle. */
  jito: JitoSending | null;
}

export type PrepareBuildDeps = Omit<PrepareDeps, "quotes"> & { build: BuildSettings };

/**
 * The micro-lamport price: the estimate (capped by the lower of LIVE_PRIORITY_FEE_MAX and
 * LIVE_PRIORITY_FEE_MAX_BPS of the trade), raised for a re-sent
 * exit so it costs at least `minLamports` (exit-fees.ts: already capped by LIVE_EXIT_PRIORITY_FEE_MAX).
 */
function exitPrice(estimated: bigint, minLamports: number | null, computeUnitLimit: number): bigint {
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
  // Our reference price and /build's route do not depend on each other; the floor needs both.
  const [ref, { quote, build }] = await together([
    () => referencePrice(d.prices, req),
    () => s.v2.build(quoteRequestOf(req), req.walletAddress),
  ]);
  const floor = judgeLiveFloor(req, quote, ref);
  let after: AfterBuild;
  let prepared: Awaited<ReturnType<typeof prepareBuildSwap>>;
  let micro: bigint;
  try {
    // The trade's SOL: a buy's input, a sale's least output (our floor, not the quote's promise).
    const tradeLamports = req.side === "BUY" ? req.amountAtomic : floor.minOutAtomic;
    after = await readAfterBuild(d, req, quote, build, capForTrade(s.fee, tradeLamports));
    logQuoted(d.log, req, quote, floor, ref);
    micro = exitPrice(after.estimate.microLamportsPerUnit, minPriorityLamports, s.fee.computeUnitLimit);
    // Compiled with OUR blockhash: the inspection simulates exactly the message that is signed.
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
        blockhash: after.blockhash.blockhash,
        computeUnitLimit: s.fee.computeUnitLimit,
        microLamportsPerUnit: micro,
        allowedPrograms: d.allowedPrograms,
        tip: after.tip,
        maxFeeLamports: BASE_FEE_LAMPORTS + feeLamports(micro, s.fee.computeUnitLimit),
        lookupTables: after.lookupTables,
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
  const priorityLamports = feeLamports(micro, s.fee.computeUnitLimit);
  const { tip, estimate } = after;
  d.log.info("live swap assembled", {
    ...logContext(req),
    microLamportsPerUnit: micro.toString(),
    priorityFeeLamports: priorityLamports.toString(),
    priorityFeeSamples: estimate.samples,
    priorityFeeCapped: estimate.capped,
    tipLamports: tip?.lamports.toString() ?? "0",
  });
  const jito = s.jito;
  return {
    quote,
    floor,
    tx: prepared.transaction,
    blockhash: after.blockhash,
    priorityFeeCapLamports: Number(priorityLamports),
    reportedPriorityFeeLamports: Number(priorityLamports),
    tipLamports: tip?.lamports ?? 0n,
    send: jito ? (signed) => jito.client.sendBundle([signed]) : undefined,
  };
}

interface AfterBuild {
  estimate: PriorityFee;
  tip: Awaited<ReturnType<typeof jitoTip>> | undefined;
  lookupTables: AddressLookupTableAccount[];
  blockhash: BlockhashRead;
}

/**
 * The reads that need only /build's answer, together: screening's quote back to SOL, the recent
 * fees over the route's write locks, the Jito tip account, the route's lookup tables and our
 * blockhash (read a round before the inspection's simulation instead of after it; the journal
 * keeps this read's lastValidBlockHeight and slot). Nothing is assembled until every one answered:
 * a screening refusal or a failed read stops the swap before signing, as when they ran in turn.
 */
async function readAfterBuild(
  d: PrepareBuildDeps,
  req: SwapRequest,
  quote: Parameters<typeof screenLiveBuy>[2],
  build: BuildInstructions,
  fee: PriorityFeeSetting,
): Promise<AfterBuild> {
  const s = d.build;
  const [, estimate, tip, lookupTables, blockhash] = await together([
    () => screenLiveBuy(d, req, quote),
    () => estimatePriorityFee(s.rpc, writableAccounts(build, req.walletAddress), fee),
    () => (s.jito ? jitoTip(s.jito) : undefined),
    () => resolveLookupTables(d.inspector, build.addressesByLookupTableAddress),
    () => d.sender.latestBlockhash(),
  ]);
  return { estimate, tip, lookupTables, blockhash };
}

async function jitoTip(j: JitoSending) {
  const lamports = BigInt(j.tipLamports);
  const foreign = (await j.client.tipAccounts()).find((a) => !j.pinned.has(a));
  if (foreign !== undefined)
    throw new SwapRefusedError(
      "sol",
      `the Jito block engine lists tip account ${foreign}, which is not a pinned tip account (JITO_TIP_ACCOUNTS)`,
    );
  return {
    account: await j.client.tipAccount((j.pick ?? Math.random)()),
    lamports,
    tipAccounts: j.pinned,
    maxTipLamports: lamports,
  };
}
