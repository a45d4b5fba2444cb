import { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { Clock } from "../clock.ts";
import { ConflictError, TradingError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { unexpectedResponse } from "../market/http-client.ts";
import {
  type ChainBalances,
  type LandedTransaction,
  type SolanaRpcClient,
  SolanaRpcError,
  solDelta,
  tokenDelta,
} from "../market/solana-rpc.ts";
import type { PriorityFee, Quote, QuoteProvider } from "../market/types.ts";
import { fromAtomic, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import type { LiveWalletRegistry } from "../wallets/live-wallet-registry.ts";
import type { SwapFill, SwapRequest, TradeExecutor } from "./executor.ts";
import type { LiveTradeJournal } from "./live-journal.ts";
import { checkSlippage } from "./rules/slippage.ts";
import { assertPriceImpact } from "./simulation-executor.ts";

// Live swaps on Solana (issue: live trading; PRODUCT.md §5 "Live swap"). One swap, step by step,
// each step logged, refusing anything unexpected BEFORE the key touches it:
//   1. slippage within slippage.maxBps (the agent's own setting; a retry never loosens it),
//   2. quote from the aggregator, price impact within maxBps,
//   3. swap transaction from the aggregator with LIVE_PRIORITY_FEE,
//   4. deserialize; the fee payer must be the agent's wallet and it must be the ONLY required
//      signer — anything else is refused before signing,
//   5. sign in memory (LiveWalletRegistry), optionally simulate (LIVE_SIMULATE_BEFORE_SEND),
//   6. journal the signature (live_trades, before sending: a sent swap is never forgotten),
//   7. sendTransaction (base64), then poll getSignatureStatuses until confirmed, failed, or the
//      blockhash expired (getBlockHeight > lastValidBlockHeight). No WebSocket.
// Outcomes: confirmed → a "confirmed" fill whose amounts are the chain's (getTransaction pre/post
// balances) and whose balances are read back (getBalance, getTokenAccountsByOwner); an error or
// expiry → a thrown error (the engine logs a failed trade, nothing changes); no answer within the
// confirmation window → a "pending" fill: the settlement records a pending trade that the
// reconciler resolves by signature. The executor never sends a second transaction for a swap.

/** Solana's base fee per signature (lamports); the pending estimate adds the priority fee. */
const BASE_FEE_LAMPORTS = 5_000n;

export interface LiveChainResult {
  signature: string;
  lastValidBlockHeight: number;
  /** Balances of the wallet read after confirmation; null while the outcome is unknown. */
  balancesAfter: ChainBalances | null;
}

/** A live fill: the engine's SwapFill plus what the settlement needs from the chain. */
export interface LiveSwapFill extends SwapFill {
  live: LiveChainResult;
}

export const isLiveFill = (f: SwapFill): f is LiveSwapFill =>
  "live" in f && typeof (f as LiveSwapFill).live?.signature === "string";

export interface ConfirmationOptions {
  /** Wait between two status polls (default 2 s). */
  pollIntervalMs?: number;
  /** Polls before the outcome counts as unknown (default 30: about a minute, a blockhash's life). */
  maxPolls?: number;
}

export interface LiveExecutorDeps {
  quotes: QuoteProvider;
  rpc: SolanaRpcClient;
  wallets: LiveWalletRegistry;
  journal: LiveTradeJournal;
  logger: Logger;
  /** Waits between confirmation polls (tests: a ManualClock, whose sleep returns at once). */
  clock: Pick<Clock, "sleep">;
  /** LIVE_PRIORITY_FEE: "auto" (aggregator's choice, capped) or a lamport amount. */
  priorityFee: PriorityFee;
  /** LIVE_SIMULATE_BEFORE_SEND. */
  simulateBeforeSend: boolean;
  confirmation?: ConfirmationOptions;
}

export const PENDING_TRADE_MESSAGE =
  "A live trade of this token is still awaiting confirmation; it will be reconciled from the chain before another is sent";
export const LIVE_WALLET_NOT_LOADED =
  "The agent's live wallet is not loaded from environment variables (WALLET_1, WALLET_2, ...)";

type Confirmation = { kind: "landed" } | { kind: "failed"; err: unknown } | { kind: "expired" } | { kind: "unknown" };

export class LiveExecutor implements TradeExecutor {
  readonly mode = "live" as const;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly maxPolls: number;

  constructor(private readonly d: LiveExecutorDeps) {
    this.log = d.logger.child({ component: "live" });
    this.pollIntervalMs = d.confirmation?.pollIntervalMs ?? 2_000;
    this.maxPolls = Math.max(1, d.confirmation?.maxPolls ?? 30);
  }

  async swap(req: SwapRequest): Promise<LiveSwapFill> {
    const slip = checkSlippage(req.slippageBps, { maxBps: req.maxBps });
    if (!slip.ok) throw new TradingError(slip.message, slip.details);
    if (!this.d.wallets.has(req.walletAddress))
      throw new TradingError(LIVE_WALLET_NOT_LOADED, { walletAddress: req.walletAddress });
    if (this.d.journal.hasUnresolved(req.agentId, req.tokenMint)) throw new ConflictError(PENDING_TRADE_MESSAGE);
    const ctx = { agentId: req.agentId, walletAddress: req.walletAddress, side: req.side, tokenAddress: req.tokenMint };

    const quote = await this.d.quotes.quote({
      inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
      outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
      amount: req.amountAtomic.toString(),
      slippageBps: req.slippageBps,
    });
    assertPriceImpact(quote.priceImpactPct, req.maxBps);
    if (BigInt(quote.outAmount) <= 0n) throw new TradingError("The quote returned no output amount");
    this.log.info("live swap quoted", {
      ...ctx,
      inAmount: quote.inAmount,
      outAmount: quote.outAmount,
      minOut: quote.otherAmountThreshold,
      slippageBps: req.slippageBps,
      priceImpactPct: quote.priceImpactPct,
    });

    const built = await this.d.quotes.swapTransaction(quote, req.walletAddress, this.d.priorityFee);
    if (built.simulationError) {
      throw new TradingError("The swap aggregator reports that the swap would fail", {
        simulationError: clipJson(built.simulationError),
      });
    }
    const tx = deserialize(built.swapTransaction);
    // Refused BEFORE signing: a transaction that makes someone else pay, or needs another signer,
    // is not the swap we asked for.
    assertOnlySigner(tx, req.walletAddress);
    this.d.wallets.signTransaction(req.walletAddress, tx);
    const signature = bs58.encode(tx.signatures[0]!);
    const wire = Buffer.from(tx.serialize()).toString("base64");
    const lastValid = built.lastValidBlockHeight;
    const logCtx = {
      ...ctx,
      signature,
      lastValidBlockHeight: lastValid,
      priorityFeeLamports: built.prioritizationFeeLamports,
    };
    this.log.info("live swap signed", logCtx);

    if (this.d.simulateBeforeSend) {
      const sim = await this.d.rpc.simulateTransaction(wire);
      if (sim.err) {
        this.log.warn("live swap simulation failed; not sent", {
          ...logCtx,
          error: clipJson(sim.err),
          logs: sim.logs.slice(-5),
        });
        throw new TradingError("Transaction simulation failed; nothing was sent", { error: clipJson(sim.err) });
      }
    }

    this.d.journal.writeAhead({
      signature,
      agentId: req.agentId,
      walletAddress: req.walletAddress,
      tokenAddress: req.tokenMint,
      side: req.side,
      inputAtomic: quote.inAmount,
      expectedOutputAtomic: quote.outAmount,
      tokenDecimals: req.tokenDecimals,
      lastValidBlockHeight: lastValid,
    });
    this.d.journal.inFlight.add(signature);
    let handedOver = false;
    try {
      try {
        // Our own simulation already ran: the node's preflight would only repeat it.
        const answered = await this.d.rpc.sendTransaction(wire, { skipPreflight: this.d.simulateBeforeSend });
        if (answered !== signature)
          this.log.warn("RPC answered another signature than the transaction's", { ...logCtx, answered });
        this.log.info("live swap sent", logCtx);
      } catch (err) {
        if (err instanceof SolanaRpcError && err.failure === "rpc") {
          // A JSON-RPC error: the node refused it; it never went further.
          this.d.journal.discard(signature);
          this.log.warn("live swap refused by the RPC; not sent", { ...logCtx, reason: err.message });
          throw err;
        }
        // Timeout, lost connection, 5xx: the node may have it. Unknown, so confirm by signature.
        this.log.warn("sendTransaction answer lost; confirming by signature", {
          ...logCtx,
          reason: err instanceof Error ? err.message : String(err),
        });
      }

      const outcome = await this.confirm(signature, lastValid);
      if (outcome.kind === "failed") {
        this.d.journal.resolve(signature, "failed", { error: clipJson(outcome.err) });
        throw new TradingError("The swap transaction failed on chain", { signature, error: clipJson(outcome.err) });
      }
      if (outcome.kind === "expired") {
        this.d.journal.resolve(signature, "expired", { error: "blockhash expired before confirmation" });
        throw new TradingError(
          "The swap transaction expired before it was confirmed (blockhash expired); nothing changed",
          { signature },
        );
      }
      const pending = (): LiveSwapFill => {
        handedOver = true;
        this.log.warn("live swap not confirmed in time; recorded as pending", logCtx);
        return {
          inputAtomic: BigInt(quote.inAmount),
          outputAtomic: BigInt(quote.outAmount),
          feesSol: fromAtomic(BASE_FEE_LAMPORTS + BigInt(built.prioritizationFeeLamports ?? 0), SOL_DECIMALS),
          routes: quote.routeLabels,
          priceImpactPct: quote.priceImpactPct,
          slippageBps: req.slippageBps,
          txHash: signature,
          status: "pending",
          live: { signature, lastValidBlockHeight: lastValid, balancesAfter: null },
        };
      };
      if (outcome.kind === "unknown") return pending();
      // Landed: the amounts are the chain's, and the balances are read back to mirror them.
      let landed: LandedTransaction | null;
      let balances: ChainBalances;
      try {
        landed = await this.d.rpc.getTransaction(signature);
        balances = await this.d.rpc.getBalances(req.walletAddress);
      } catch (err) {
        this.log.warn("live swap confirmed but its details could not be read", {
          ...logCtx,
          reason: err instanceof Error ? err.message : String(err),
        });
        return pending();
      }
      if (!landed) return pending();
      const amounts = amountsFromChain(req.side, req.walletAddress, req.tokenMint, landed, quote, this.log);
      handedOver = true;
      this.log.info("live swap confirmed", {
        ...logCtx,
        slot: landed.slot,
        feeLamports: landed.feeLamports.toString(),
        input: amounts.inputAtomic.toString(),
        output: amounts.outputAtomic.toString(),
      });
      return {
        inputAtomic: amounts.inputAtomic,
        outputAtomic: amounts.outputAtomic,
        feesSol: fromAtomic(landed.feeLamports, SOL_DECIMALS),
        routes: quote.routeLabels,
        priceImpactPct: quote.priceImpactPct,
        slippageBps: req.slippageBps,
        txHash: signature,
        status: "confirmed",
        live: { signature, lastValidBlockHeight: lastValid, balancesAfter: balances },
      };
    } finally {
      // A returned fill stays in flight until the settlement recorded it (it releases it).
      if (!handedOver) this.d.journal.inFlight.delete(signature);
    }
  }

  /** Polls the signature until confirmed, failed, expired, or the polls run out (unknown). */
  private async confirm(signature: string, lastValidBlockHeight: number): Promise<Confirmation> {
    for (let i = 0; i < this.maxPolls; i++) {
      if (i > 0) await this.d.clock.sleep(this.pollIntervalMs);
      const first = await this.status(signature, false);
      if (first === "error") continue;
      if (first) {
        if (first.err) return { kind: "failed", err: first.err };
        if (first.confirmationStatus === "confirmed" || first.confirmationStatus === "finalized")
          return { kind: "landed" };
        continue; // processed: in a block, not yet confirmed
      }
      let height: number;
      try {
        height = await this.d.rpc.getBlockHeight("confirmed");
      } catch {
        continue;
      }
      if (height <= lastValidBlockHeight) continue;
      // Past its blockhash's life it can no longer land; one last look covers the final block.
      const last = await this.status(signature, true);
      if (last === "error") return { kind: "unknown" };
      if (!last) return { kind: "expired" };
      if (last.err) return { kind: "failed", err: last.err };
      if (last.confirmationStatus === "confirmed" || last.confirmationStatus === "finalized") return { kind: "landed" };
    }
    return { kind: "unknown" };
  }

  private async status(signature: string, history: boolean) {
    try {
      const [s] = await this.d.rpc.getSignatureStatuses([signature], { searchTransactionHistory: history });
      return s ?? null;
    } catch (err) {
      this.log.debug("signature status unavailable", {
        signature,
        reason: err instanceof Error ? err.message : String(err),
      });
      return "error" as const;
    }
  }
}

function deserialize(base64: string): VersionedTransaction {
  try {
    return VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
  } catch {
    throw unexpectedResponse("swapAggregator", "swap transaction is not a valid serialized transaction");
  }
}

/** The agent's wallet must pay the fee and be the one and only required signer. */
export function assertOnlySigner(tx: VersionedTransaction, wallet: string): void {
  const msg = tx.message;
  const required = msg.header.numRequiredSignatures;
  const signers = msg.staticAccountKeys.slice(0, required).map((k) => k.toBase58());
  const feePayer = signers[0] ?? null;
  if (feePayer !== wallet) {
    throw new TradingError("Refused to sign: the swap transaction's fee payer is not the agent's wallet", {
      feePayer,
      walletAddress: wallet,
    });
  }
  if (required !== 1 || tx.signatures.length !== 1) {
    throw new TradingError("Refused to sign: the swap transaction requires signers other than the agent's wallet", {
      signers,
      walletAddress: wallet,
    });
  }
}

/**
 * The swap's real amounts from the transaction's pre/post balances (docs/decisions.md "Live
 * trading"): a BUY spent the wallet's SOL decrease minus the network fee (token account rent
 * included: a real cost of the buy) and received the token increase; a SELL sold the token
 * decrease and received the SOL increase plus the fee (the fee is counted as the fill's fees).
 * Should the chain show no movement (an RPC without token balances), the quote's amounts stand
 * in and a warning is logged.
 */
export function amountsFromChain(
  side: "BUY" | "SELL",
  owner: string,
  mint: string,
  landed: LandedTransaction,
  quote: Pick<Quote, "inAmount" | "outAmount">,
  log?: Logger,
): { inputAtomic: bigint; outputAtomic: bigint } {
  const sol = solDelta(landed, owner);
  const tok = tokenDelta(landed, owner, mint);
  const fee = landed.feeLamports;
  const input = side === "BUY" ? -sol - fee : -tok;
  const output = side === "BUY" ? tok : sol + fee;
  if (input > 0n && output > 0n) return { inputAtomic: input, outputAtomic: output };
  log?.warn("live swap balances not visible in the transaction; using the quote's amounts", {
    side,
    mint,
    solDelta: sol.toString(),
    tokenDelta: tok.toString(),
  });
  return { inputAtomic: BigInt(quote.inAmount), outputAtomic: BigInt(quote.outAmount) };
}

function clipJson(v: unknown): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
