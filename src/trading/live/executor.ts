import type { Clock } from "../../clock.ts";
import { ConflictError, TradingError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { SolanaRpcClient } from "../../market/solana-rpc.ts";
import type { PriorityFee, QuoteProvider, TokenPriceProvider } from "../../market/types.ts";
import type { LiveWalletRegistry } from "../../wallets/live-wallet-registry.ts";
import type { SwapRequest, TradeExecutor } from "../executor.ts";
import { priorityFeeLamports } from "../rules/fees.ts";
import { checkSlippage } from "../rules/slippage.ts";
import type { TokenScreen } from "../token-screen.ts";
import type { InspectorChain, SendChain } from "./chain-reads.ts";
import { nextExitFee, urgentExit } from "./exit-fees.ts";
import { EXPIRED_MESSAGE, type LiveSwapFill } from "./fill.ts";
import { ActionAlreadyTakenError, type LiveTradeJournal, PENDING_TRADE_MESSAGE } from "./journal.ts";
import { type OrderApi, swapByOrder } from "./order-swap.ts";
import { type BuildSettings, prepareBuild } from "./prepare-build.ts";
import { type PreparedSwap, prepareSwap } from "./prepare-swap.ts";
import { signAndSend } from "./send-swap.ts";
import { SwapRefusedError } from "./transaction-inspector.ts";

// Live swaps on Solana (issue: live trading, issue 15; PRODUCT.md §5 "Live swap"). One swap, step
// by step, each step logged, refusing anything unexpected BEFORE the key touches it:
//   1. slippage within slippage.maxBps (the agent's own setting; a retry never loosens it),
//   2. (live/prepare-swap.ts) an independent price (Price API, else the recorded one), the quote
//      judged against OUR floor (live/floor.ts: amount, slippage, outAmount, price impact),
//   3. swap transaction from the aggregator with the priority fee (SWAP_API=v1), or, on the default
//      SWAP_API=build (live/prepare-build.ts), /swap/v2/build's instructions assembled here with
//      our compute-unit limit, our priority fee (getRecentPrioritizationFees) and an optional
//      Jito tip, each instruction inspected before the simulation,
//   4. inspection (live/transaction-inspector.ts): lookup tables resolved, only allowed programs,
//      the wallet the sole signer, the fee bounded, and a simulation delivering at least
//      max(our floor, the aggregator's threshold) — anything else is refused: nothing signed,
//   5. our own blockhash (getLatestBlockhash) replaces the aggregator's,
//   6. (live/send-swap.ts) sign in memory, optionally simulate signed, journal signature,
//      blockhash, last valid height, signing slot and purpose BEFORE sending,
//   7. broadcast the same signed bytes (sendTransaction, or a Jito bundle) until confirmed,
//      failed, or PROVEN expired (live/outcome.ts). A send error is "maybe sent", never "not sent".
// Outcomes: confirmed → a "confirmed" fill with the chain's amounts; failed or proven expired →
// a thrown error (nothing changed); anything else → a "pending" fill the reconciler resolves by
// signature. Only after PROVEN expiry, and only for a stop-loss or stale exit, is the swap
// re-quoted and sent again, with a higher priority fee (live/exit-fees.ts): never a second
// transaction while the first can still land.

export interface ConfirmationOptions {
  /** Wait between two status polls (default 2 s). */
  pollIntervalMs?: number;
  /** Polls before the outcome counts as unknown (default 30: about a minute, a blockhash's life). */
  maxPolls?: number;
}

export interface LiveExecutorDeps {
  quotes: QuoteProvider;
  /** Price API v3: the independent price our floor is computed from. */
  prices: Pick<TokenPriceProvider, "getPrices">;
  rpc: SolanaRpcClient;
  /** Reads the inspector needs (accounts, simulation with accounts returned). */
  inspector: InspectorChain;
  /** Our blockhash, sends (maxRetries 0), the finalized height, statuses, history reach. */
  sender: SendChain;
  /** Programs a swap may call (inspection-rules.ts allowedPrograms + LIVE_EXTRA_PROGRAMS). */
  allowedPrograms: ReadonlySet<string>;
  wallets: LiveWalletRegistry;
  journal: LiveTradeJournal;
  logger: Logger;
  /** Waits between broadcast rounds (tests: a ManualClock, whose sleep returns at once). */
  clock: Pick<Clock, "sleep">;
  /**
   * SWAP_API=v1: the cap of the aggregator's priority-fee estimate (LIVE_PRIORITY_FEE_MAX). In
   * build mode the regular cap too (the exit ladder's "no step" line).
   */
  priorityFee: PriorityFee;
  /** LIVE_PRIORITY_FEE_MAX_BPS: SWAP_API=order's fee cap relative to the trade (live/order-swap.ts). */
  priorityFeeMaxBps?: number;
  /**
   * SWAP_API=build: swaps through /swap/v2/build, assembled here (live/prepare-build.ts). With
   * `orders` too: where an order's route is refused for its bytes, the swap is built instead.
   */
  build?: BuildSettings | null;
  /** LIVE_EXIT_PRIORITY_FEE_MAX: the most a re-sent stop-loss or stale exit pays (lamports). */
  exitPriorityFeeMax?: number;
  /** LIVE_SIMULATE_BEFORE_SEND: simulate the SIGNED transaction too (signatures verified). */
  simulateBeforeSend: boolean;
  confirmation?: ConfirmationOptions;
  /** Token screening of buys: signal buys and DCA orders (issue 15). */
  screen?: TokenScreen | null;
  /** SWAP_API=order: Jupiter's /order + /execute (live/order-swap.ts) instead of `quotes`. */
  orders?: OrderApi | null;
}

export { maxSwapFeeLamports } from "./prepare-swap.ts";

const LIVE_WALLET_NOT_LOADED =
  "The agent's live wallet is not loaded from environment variables (WALLET_1, WALLET_2, ...)";

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
   * Never two swaps of a token in doubt for an agent or a wallet (pending, unknown, or left
   * "sending" by a crash), and never an action started again whose earlier attempt was sent and
   * did not fail or expire.
   */
  private assertNotStarted(req: SwapRequest): void {
    const taken = req.intent ? this.d.journal.actionTaken(req.agentId, req.tokenMint, req.intent) : null;
    if (taken) throw new ActionAlreadyTakenError(req.intent!, taken === "in_doubt");
    if (this.d.journal.hasUnresolved(req.agentId, req.tokenMint, req.walletAddress))
      throw new ConflictError(PENDING_TRADE_MESSAGE);
  }

  async swap(req: SwapRequest): Promise<LiveSwapFill> {
    const slip = checkSlippage(req.slippageBps, { maxBps: req.maxBps });
    if (!slip.ok) throw new TradingError(slip.message, slip.details);
    if (!this.d.wallets.has(req.walletAddress))
      throw new TradingError(LIVE_WALLET_NOT_LOADED, { walletAddress: req.walletAddress });
    this.assertNotStarted(req);
    if (this.d.orders) {
      const byOrder = await this.byOrder(this.d.orders, req);
      if (byOrder) return byOrder;
    }
    const urgent = urgentExit(req.intent);
    const maxFee = Math.max(this.d.exitPriorityFeeMax ?? 0, priorityFeeLamports(this.d.priorityFee));
    // An exit whose earlier attempt (an earlier tick) expired starts one step above its fee.
    const lastExpired =
      urgent && req.intent ? this.d.journal.lastExpiredFee(req.agentId, req.tokenMint, req.intent) : null;
    let fee: PriorityFee = lastExpired === null ? this.d.priorityFee : nextExitFee(lastExpired, maxFee);
    let stepped = lastExpired !== null;
    for (;;) {
      const prep = await this.prepare(req, fee, stepped);
      const sent = await signAndSend(
        {
          rpc: this.d.rpc,
          sender: this.d.sender,
          wallets: this.d.wallets,
          journal: this.d.journal,
          log: this.log,
          clock: this.d.clock,
          simulateBeforeSend: this.d.simulateBeforeSend,
          pollIntervalMs: this.pollIntervalMs,
          maxPolls: this.maxPolls,
          assertNotStarted: (r) => this.assertNotStarted(r),
        },
        req,
        prep,
      );
      if (sent.kind === "fill") return sent.fill;
      const paid = prep.priorityFeeCapLamports;
      const next = nextExitFee(paid, maxFee);
      // At the cap: a price rounded down to whole micro-lamports can cost a lamport under it, so
      // "no higher step left" ends the ladder too, not only paid ≥ cap.
      const noStep = stepped && next <= priorityFeeLamports(fee);
      if (!urgent || paid >= maxFee || noStep) throw new TradingError(EXPIRED_MESSAGE, { signature: sent.signature });
      fee = next;
      stepped = true;
      this.log.warn("live exit expired unconfirmed; re-quoting with a higher priority fee", {
        agentId: req.agentId,
        tokenAddress: req.tokenMint,
        expiredSignature: sent.signature,
        priorityFeeLamports: paid,
        nextPriorityFeeLamports: fee,
      });
    }
  }

  /**
   * v1: the aggregator's transaction under the fee cap `fee`. build: assembled here at the
   * estimated fee, or at least `fee` once an exit's fee has stepped up.
   */
  private prepare(req: SwapRequest, fee: PriorityFee, stepped: boolean): Promise<PreparedSwap> {
    const deps = {
      prices: this.d.prices,
      inspector: this.d.inspector,
      sender: this.d.sender,
      allowedPrograms: this.d.allowedPrograms,
      screen: this.d.screen,
      log: this.log,
    };
    if (this.d.build)
      return prepareBuild({ ...deps, build: this.d.build }, req, stepped ? priorityFeeLamports(fee) : null);
    return prepareSwap({ ...deps, quotes: this.d.quotes }, req, fee);
  }

  /**
   * SWAP_API=order. An order whose Jupiter route the inspection refused for its bytes (a minimum
   * below ours, or a route it cannot read: issue 40) is not signed; with /build at hand the swap is
   * built here instead (null), where the route's minimum is ours to write. Nothing was journaled.
   */
  private async byOrder(orders: OrderApi, req: SwapRequest): Promise<LiveSwapFill | null> {
    try {
      return await swapByOrder(this.orderDeps(orders), req, this.d.priorityFee);
    } catch (err) {
      if (!(err instanceof SwapRefusedError && err.check === "route" && this.d.build)) throw err;
      this.log.warn("the order's route was refused for its bytes; building the swap instead", {
        agentId: req.agentId,
        tokenAddress: req.tokenMint,
        reason: err.message,
      });
      return null;
    }
  }

  /** An order's expiry is a failed attempt: the next tick orders again (Jupiter sets its fee). */
  private orderDeps(orders: OrderApi) {
    return {
      ...this.d,
      orders,
      log: this.log,
      pollIntervalMs: this.pollIntervalMs,
      maxPolls: this.maxPolls,
      assertNotStarted: (r: SwapRequest) => this.assertNotStarted(r),
    };
  }
}
