import bs58 from "bs58";
import type { Clock } from "../../clock.ts";
import { TradingError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { LandedTransaction } from "../../market/landed-transaction.ts";
import type { ChainBalances, SolanaRpcClient } from "../../market/solana-rpc.ts";
import { fromAtomic, SOL_DECIMALS } from "../../money.ts";
import type { LiveWalletRegistry } from "../../wallets/live-wallet-registry.ts";
import type { SwapRequest } from "../executor.ts";
import type { SendChain } from "./chain-reads.ts";
import { amountsFromChain, type LiveSwapFill, rentOfFill } from "./fill.ts";
import type { LiveTradeJournal } from "./journal.ts";
import { type Attempt, type AttemptState, broadcastUntilSettled } from "./outcome.ts";
import { BASE_FEE_LAMPORTS, clipJson, type PreparedSwap } from "./prepare-swap.ts";

// A prepared swap from signing to its outcome: sign in memory, optionally simulate signed,
// journal the signature, our blockhash, its last valid height and the signing slot BEFORE sending
// (a sent swap is never forgotten), then broadcast the same bytes until confirmed, failed, or
// PROVEN expired (outcome.ts). Confirmed → a fill with the chain's amounts; failed → thrown;
// expired → "expired" (the caller decides whether an exit is re-quoted); anything else,
// "unknown" included → a pending fill the reconciler resolves by signature.

export interface SendDeps {
  rpc: Pick<SolanaRpcClient, "simulateTransaction" | "getTransaction" | "getBalances">;
  sender: SendChain;
  wallets: LiveWalletRegistry;
  journal: LiveTradeJournal;
  log: Logger;
  clock: Pick<Clock, "sleep">;
  simulateBeforeSend: boolean;
  pollIntervalMs: number;
  maxPolls: number;
  /** Re-checked right before the journal row, with no await in between (executor's guard). */
  assertNotStarted(req: SwapRequest): void;
}

export type SendOutcome = { kind: "fill"; fill: LiveSwapFill } | { kind: "expired"; signature: string };

/**
 * A failed attempt is journaled failed and thrown; a proven expiry is journaled expired and
 * reported (true), for the caller to say what it means; anything else is left to the caller.
 */
export function journalUnlanded(
  journal: Pick<LiveTradeJournal, "resolve">,
  signature: string,
  outcome: AttemptState,
): boolean {
  if (outcome.kind === "failed") {
    journal.resolve(signature, "failed", { error: clipJson(outcome.err) });
    throw new TradingError("The swap transaction failed on chain", { signature, error: clipJson(outcome.err) });
  }
  if (outcome.kind !== "expired") return false;
  journal.resolve(signature, "expired", { error: "blockhash expired before confirmation (proven)" });
  return true;
}

/**
 * LIVE_SIMULATE_BEFORE_SEND: the SIGNED transaction simulated (signatures verified) before the
 * journal row; a failure throws and nothing is sent.
 */
export async function simulateSigned(
  d: { rpc: Pick<SolanaRpcClient, "simulateTransaction">; log: Logger },
  wire: string,
  logCtx: Record<string, unknown>,
  what: "swap" | "order",
): Promise<void> {
  const sim = await d.rpc.simulateTransaction(wire);
  if (!sim.err) return;
  d.log.warn(`live ${what} simulation failed; not sent`, {
    ...logCtx,
    error: clipJson(sim.err),
    logs: sim.logs.slice(-5),
  });
  throw new TradingError("Transaction simulation failed; nothing was sent", { error: clipJson(sim.err) });
}

export async function signAndSend(d: SendDeps, req: SwapRequest, prep: PreparedSwap): Promise<SendOutcome> {
  const { quote, tx, blockhash } = prep;
  d.wallets.signTransaction(req.walletAddress, tx);
  const signature = bs58.encode(tx.signatures[0]!);
  const wire = Buffer.from(tx.serialize()).toString("base64");
  const attempt: Attempt = {
    signature,
    blockhash: blockhash.blockhash,
    lastValidBlockHeight: blockhash.lastValidBlockHeight,
    signedAtSlot: blockhash.contextSlot,
  };
  const logCtx = {
    agentId: req.agentId,
    walletAddress: req.walletAddress,
    side: req.side,
    tokenAddress: req.tokenMint,
    signature,
    lastValidBlockHeight: attempt.lastValidBlockHeight,
    priorityFeeLamports: prep.reportedPriorityFeeLamports,
    priorityFeeCapLamports: prep.priorityFeeCapLamports,
    tipLamports: Number(prep.tipLamports ?? 0n),
  };
  d.log.info("live swap signed", logCtx);

  if (d.simulateBeforeSend) await simulateSigned(d, wire, logCtx, "swap");

  // While this swap was quoted and inspected, the reconciler may have settled an earlier attempt.
  d.assertNotStarted(req);
  d.journal.writeAhead(
    {
      signature,
      agentId: req.agentId,
      walletAddress: req.walletAddress,
      tokenAddress: req.tokenMint,
      side: req.side,
      inputAtomic: quote.inAmount,
      expectedOutputAtomic: quote.outAmount,
      tokenDecimals: req.tokenDecimals,
      blockhash: attempt.blockhash,
      lastValidBlockHeight: attempt.lastValidBlockHeight,
      signedAtSlot: attempt.signedAtSlot,
      priorityFeeLamports: prep.priorityFeeCapLamports,
      tipLamports: Number(prep.tipLamports ?? 0n),
    },
    req.intent ?? null,
  );
  d.journal.inFlight.add(signature);
  let handedOver = false;
  try {
    const sent = await broadcastUntilSettled(
      { chain: d.sender, clock: d.clock, logger: d.log },
      { signedBase64: wire, attempt, intervalMs: d.pollIntervalMs, maxRounds: d.maxPolls, send: prep.send },
    );
    const outcome = sent.state;
    d.log.info("live swap broadcast", {
      ...logCtx,
      sends: sent.sends,
      sendErrors: sent.sendErrors,
      outcome: outcome.kind,
    });
    if (journalUnlanded(d.journal, signature, outcome)) return { kind: "expired", signature };
    const fill = (
      status: "pending" | "confirmed",
      landed?: LandedTransaction,
      balances?: ChainBalances,
    ): SendOutcome => {
      handedOver = true;
      return { kind: "fill", fill: toFill(req, prep, signature, status, landed, balances, d.log) };
    };
    if (outcome.kind !== "landed") {
      d.log.warn("live swap not confirmed in time; recorded as pending", { ...logCtx, state: outcome.kind });
      return fill("pending");
    }
    // Landed: the amounts are the chain's (the transaction's meta), and the balances are read
    // at or after the confirmation's slot, so a lagging node cannot answer the old ones.
    let landed: LandedTransaction | null;
    let balances: ChainBalances;
    try {
      landed = await d.rpc.getTransaction(signature);
      balances = await d.rpc.getBalances(req.walletAddress, outcome.slot);
    } catch (err) {
      d.log.warn("live swap confirmed but its details could not be read", {
        ...logCtx,
        reason: err instanceof Error ? err.message : String(err),
      });
      return fill("pending");
    }
    if (!landed) return fill("pending");
    d.log.info("live swap confirmed", { ...logCtx, slot: landed.slot, feeLamports: landed.feeLamports.toString() });
    return fill("confirmed", landed, balances);
  } finally {
    // A returned fill stays in flight until the settlement recorded it (it releases it).
    if (!handedOver) d.journal.inFlight.delete(signature);
  }
}

function toFill(
  req: SwapRequest,
  prep: PreparedSwap,
  signature: string,
  status: "pending" | "confirmed",
  landed: LandedTransaction | undefined,
  balances: ChainBalances | undefined,
  log: Logger,
): LiveSwapFill {
  const { quote } = prep;
  const tip = prep.tipLamports ?? 0n;
  const common = {
    routes: quote.routeLabels,
    priceImpactPct: quote.priceImpactPct,
    slippageBps: req.slippageBps,
    txHash: signature,
  };
  if (status === "pending" || !landed || !balances)
    return {
      ...common,
      inputAtomic: BigInt(quote.inAmount),
      outputAtomic: BigInt(quote.outAmount),
      feesSol: fromAtomic(BASE_FEE_LAMPORTS + BigInt(prep.reportedPriorityFeeLamports ?? 0) + tip, SOL_DECIMALS),
      status: "pending",
      live: { signature, lastValidBlockHeight: prep.blockhash.lastValidBlockHeight, balancesAfter: null },
    };
  const amounts = amountsFromChain(req.side, req.walletAddress, req.tokenMint, landed, quote, log, tip);
  return {
    ...common,
    inputAtomic: amounts.inputAtomic,
    outputAtomic: amounts.outputAtomic,
    feesSol: fromAtomic(landed.feeLamports + tip, SOL_DECIMALS),
    ...rentOfFill(amounts),
    status: "confirmed",
    live: {
      signature,
      lastValidBlockHeight: prep.blockhash.lastValidBlockHeight,
      balancesAfter: balances,
      slot: landed.slot,
    },
  };
}
