import type { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { Clock } from "../clock.ts";
import { ConflictError, TradingError } from "../errors.ts";
import { web3 } from "../lazy/modules.ts";
import type { Logger } from "../logger.ts";
import { unexpectedResponse } from "../market/http-client.ts";
import {
  type ChainBalances,
  type LandedTransaction,
  type SolanaRpcClient,
  solDelta,
  tokenAccountLamportsDelta,
  tokenDelta,
} from "../market/solana-rpc.ts";
import type { PriorityFee, Quote, QuoteProvider } from "../market/types.ts";
import { fromAtomic, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import type { LiveWalletRegistry } from "../wallets/live-wallet-registry.ts";
import type { SwapFill, SwapRequest, TradeExecutor } from "./executor.ts";
import type { InspectorChain, SendChain } from "./live/chain-reads.ts";
import { broadcastUntilSettled } from "./live/outcome.ts";
import { inspectSwapTransaction, SwapRefusedError } from "./live/transaction-inspector.ts";
import { ActionAlreadyTakenError, type LiveTradeJournal, PENDING_TRADE_MESSAGE } from "./live-journal.ts";
import { priorityFeeLamports } from "./rules/fees.ts";
import { checkSlippage } from "./rules/slippage.ts";
import { assertPriceFloor, assertPriceImpact } from "./simulation-executor.ts";
import type { TokenScreen } from "./token-screen.ts";

// Live swaps on Solana (issue: live trading, issue 15; PRODUCT.md §5 "Live swap"). One swap, step
// by step, each step logged, refusing anything unexpected BEFORE the key touches it:
//   1. slippage within slippage.maxBps (the agent's own setting; a retry never loosens it),
//   2. quote from the aggregator, price impact within the request's cap,
//   3. swap transaction from the aggregator with LIVE_PRIORITY_FEE,
//   4. inspection (live/transaction-inspector.ts): lookup tables resolved, only allowed programs,
//      the wallet the sole signer, the fee bounded, and a simulation whose effect on the wallet is
//      the swap asked for — anything else is refused (SwapRefusedError): nothing signed or sent,
//   5. sign in memory (LiveWalletRegistry), optionally simulate signed (LIVE_SIMULATE_BEFORE_SEND),
//   6. journal the signature AND what the swap is for (live_trades, before sending: a sent swap
//      is never forgotten, and a crash cannot lose its purpose),
//   7. broadcast the same signed bytes every ~2 s (maxRetries 0) until confirmed, failed, or
//      PROVEN expired (live/outcome.ts). A send error is "maybe sent", never "not sent".
// Outcomes: confirmed → a "confirmed" fill whose amounts are the chain's (the transaction's meta)
// and whose balances are read back at or after the confirmation's slot (minContextSlot); failed
// or proven expired → a thrown error (nothing changes); anything else → a "pending" fill that the
// reconciler resolves by signature. The executor never sends a second transaction for a swap.

/** Solana's base fee per signature (lamports); the pending estimate adds the priority fee. */
const BASE_FEE_LAMPORTS = 5_000n;

export interface LiveChainResult {
  signature: string;
  lastValidBlockHeight: number;
  /** Balances of the wallet read after confirmation; null while the outcome is unknown. */
  balancesAfter: ChainBalances | null;
  /** The slot the swap was confirmed in (balancesAfter was read at or after it); absent while pending. */
  slot?: number;
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
  /** Reads the inspector needs (accounts, simulation with accounts returned). */
  inspector: InspectorChain;
  /** Sends raw bytes (maxRetries 0), reads the finalized height and statuses with their slots. */
  sender: SendChain;
  /** Programs a swap may call (inspection-rules.ts allowedPrograms + LIVE_EXTRA_PROGRAMS). */
  allowedPrograms: ReadonlySet<string>;
  wallets: LiveWalletRegistry;
  journal: LiveTradeJournal;
  logger: Logger;
  /** Waits between broadcast rounds (tests: a ManualClock, whose sleep returns at once). */
  clock: Pick<Clock, "sleep">;
  /** LIVE_PRIORITY_FEE: "auto" (aggregator's choice, capped) or a lamport amount. */
  priorityFee: PriorityFee;
  /** LIVE_SIMULATE_BEFORE_SEND: simulate the SIGNED transaction too (signatures verified). */
  simulateBeforeSend: boolean;
  confirmation?: ConfirmationOptions;
  /** Token screening of buys: signal buys and DCA orders (issue 15). */
  screen?: TokenScreen | null;
}

export { PENDING_TRADE_MESSAGE } from "./live-journal.ts";
export const LIVE_WALLET_NOT_LOADED =
  "The agent's live wallet is not loaded from environment variables (WALLET_1, WALLET_2, ...)";

/** Most a swap may pay in fees: one signature plus the priority fee asked for (or its auto cap). */
export function maxSwapFeeLamports(fee: PriorityFee): bigint {
  return BASE_FEE_LAMPORTS + BigInt(priorityFeeLamports(fee));
}

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

  /**
   * Never two swaps of a token in doubt for an agent (pending, or left "sending" by a crash), and
   * never an action started again whose earlier attempt was sent and did not fail or expire.
   */
  private assertNotStarted(req: SwapRequest): void {
    const taken = req.intent ? this.d.journal.actionTaken(req.agentId, req.tokenMint, req.intent) : null;
    if (taken) throw new ActionAlreadyTakenError(req.intent!, taken === "in_doubt");
    if (this.d.journal.hasUnresolved(req.agentId, req.tokenMint)) throw new ConflictError(PENDING_TRADE_MESSAGE);
  }

  async swap(req: SwapRequest): Promise<LiveSwapFill> {
    const slip = checkSlippage(req.slippageBps, { maxBps: req.maxBps });
    if (!slip.ok) throw new TradingError(slip.message, slip.details);
    if (!this.d.wallets.has(req.walletAddress))
      throw new TradingError(LIVE_WALLET_NOT_LOADED, { walletAddress: req.walletAddress });
    this.assertNotStarted(req);
    const ctx = { agentId: req.agentId, walletAddress: req.walletAddress, side: req.side, tokenAddress: req.tokenMint };

    const quote = await this.d.quotes.quote({
      inputMint: req.side === "BUY" ? SOL_MINT : req.tokenMint,
      outputMint: req.side === "BUY" ? req.tokenMint : SOL_MINT,
      amount: req.amountAtomic.toString(),
      slippageBps: req.slippageBps,
    });
    if (req.maxImpactBps !== null) assertPriceImpact(quote.priceImpactPct, req.maxImpactBps ?? req.maxBps);
    if (BigInt(quote.outAmount) <= 0n) throw new TradingError("The quote returned no output amount");
    assertPriceFloor(BigInt(quote.outAmount), req.minOutputAtomic);
    if (req.screening && this.d.screen)
      await this.d.screen.check(req.tokenMint, BigInt(quote.outAmount), req.screening, req.slippageBps);
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
    // Refused BEFORE signing: anything but the swap we asked for (issue 15 "Inspect before signing").
    try {
      await inspectSwapTransaction(
        { chain: this.d.inspector, allowedPrograms: this.d.allowedPrograms, logger: this.log },
        {
          transaction: tx,
          wallet: req.walletAddress,
          intent: {
            side: req.side === "BUY" ? "buy" : "sell",
            mint: req.tokenMint,
            inAmount: req.amountAtomic,
            minOutAmount: BigInt(quote.otherAmountThreshold),
          },
          maxFeeLamports: maxSwapFeeLamports(this.d.priorityFee),
        },
      );
    } catch (err) {
      if (err instanceof SwapRefusedError)
        this.log.warn("live swap refused before signing; nothing sent", {
          ...ctx,
          check: err.check,
          reason: err.message,
        });
      throw err;
    }
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

    // Again right before the journal row, with no await in between: while this swap was quoted and
    // inspected, the reconciler may have settled an earlier attempt of the same action.
    this.assertNotStarted(req);
    this.d.journal.writeAhead(
      {
        signature,
        agentId: req.agentId,
        walletAddress: req.walletAddress,
        tokenAddress: req.tokenMint,
        side: req.side,
        inputAtomic: quote.inAmount,
        expectedOutputAtomic: quote.outAmount,
        tokenDecimals: req.tokenDecimals,
        lastValidBlockHeight: lastValid,
      },
      req.intent ?? null,
    );
    this.d.journal.inFlight.add(signature);
    let handedOver = false;
    try {
      const sent = await broadcastUntilSettled(
        { chain: this.d.sender, clock: this.d.clock, logger: this.log },
        {
          signedBase64: wire,
          signature,
          lastValidBlockHeight: lastValid,
          intervalMs: this.pollIntervalMs,
          maxRounds: this.maxPolls,
        },
      );
      const outcome = sent.state;
      this.log.info("live swap broadcast", { ...logCtx, sends: sent.sends, sendErrors: sent.sendErrors });
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
      if (outcome.kind === "pending") return pending();
      // Landed: the amounts are the chain's (the transaction's meta), and the balances are read
      // at or after the confirmation's slot, so a lagging node cannot answer the old ones.
      let landed: LandedTransaction | null;
      let balances: ChainBalances;
      try {
        landed = await this.d.rpc.getTransaction(signature);
        balances = await this.d.rpc.getBalances(req.walletAddress, outcome.slot);
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
        ...rentOfFill(amounts),
        routes: quote.routeLabels,
        priceImpactPct: quote.priceImpactPct,
        slippageBps: req.slippageBps,
        txHash: signature,
        status: "confirmed",
        live: { signature, lastValidBlockHeight: lastValid, balancesAfter: balances, slot: outcome.slot },
      };
    } finally {
      // A returned fill stays in flight until the settlement recorded it (it releases it).
      if (!handedOver) this.d.journal.inFlight.delete(signature);
    }
  }
}

function deserialize(base64: string): VersionedTransaction {
  try {
    return web3().VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
  } catch {
    throw unexpectedResponse("swapAggregator", "swap transaction is not a valid serialized transaction");
  }
}

/**
 * The swap's real amounts from the transaction's pre/post balances (docs/decisions.md "Books that
 * reconcile"): the SOL side is the wallet's change as solDelta sees it (lamports plus its
 * wrapped-SOL accounts), less the network fee (the fill's fees) and less the rent of a token
 * account of the mint the swap created (recorded on its own as rentDepositSol) or plus the rent
 * of one it closed (rentRefundSol). So a BUY's input is the SOL that went into the swap, and the
 * entry price (input ÷ tokens) is the simulation's for the same fill. Should the chain show no
 * movement (an RPC without token balances), the quote's amounts stand in and a warning is logged.
 */
export function amountsFromChain(
  side: "BUY" | "SELL",
  owner: string,
  mint: string,
  landed: LandedTransaction,
  quote: Pick<Quote, "inAmount" | "outAmount">,
  log?: Logger,
): { inputAtomic: bigint; outputAtomic: bigint; rentDepositLamports: bigint; rentRefundLamports: bigint } {
  const sol = solDelta(landed, owner);
  const tok = tokenDelta(landed, owner, mint);
  const fee = landed.feeLamports;
  const rent = tokenAccountLamportsDelta(landed, owner, mint);
  const rentDepositLamports = rent > 0n ? rent : 0n;
  const rentRefundLamports = rent < 0n ? -rent : 0n;
  const input = side === "BUY" ? -sol - fee - rentDepositLamports : -tok;
  const output = side === "BUY" ? tok : sol + fee - rentRefundLamports;
  if (input > 0n && output > 0n)
    return { inputAtomic: input, outputAtomic: output, rentDepositLamports, rentRefundLamports };
  log?.warn("live swap balances not visible in the transaction; using the quote's amounts", {
    side,
    mint,
    solDelta: sol.toString(),
    tokenDelta: tok.toString(),
  });
  return {
    inputAtomic: BigInt(quote.inAmount),
    outputAtomic: BigInt(quote.outAmount),
    rentDepositLamports: 0n,
    rentRefundLamports: 0n,
  };
}

/** The fill fields of a swap's token-account rent (SwapFill.rentDepositSol / rentRefundSol). */
export const rentOfFill = (a: { rentDepositLamports: bigint; rentRefundLamports: bigint }) => ({
  rentDepositSol: fromAtomic(a.rentDepositLamports, SOL_DECIMALS),
  rentRefundSol: fromAtomic(a.rentRefundLamports, SOL_DECIMALS),
});

function clipJson(v: unknown): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
