/**
 * The live path, one folder, this file its one entrance (docs/decisions/live-module.md). A live
 * swap goes through six stages, each in its own files, and nothing is signed that the one gate
 * has not passed:
 *
 * 1. prepare: the quote and an independent price judged against OUR floor (prepare-swap.ts,
 *    floor.ts); SWAP_API=build assembles /swap/v2/build's instructions with our compute budget,
 *    priority fee and tip (prepare-build.ts, build-assembly.ts, priority-fee.ts); SWAP_API=order
 *    takes Jupiter's /order transaction (order-swap.ts), built instead when its route's bytes
 *    are refused (executor.ts). Reads of the chain: chain-reads.ts.
 * 2. inspect — THE GATE: inspectSwapTransaction (transaction-inspector.ts) reads the compiled
 *    message itself, its header, lookup tables, every instruction naming the wallet
 *    (build-inspection.ts, rules in inspection-rules.ts; the Jupiter route decoded from its bytes
 *    in jupiter-route.ts, its on-chain minimum held to ours in route-floor.ts) and a simulation.
 *    Every mode reaches it:
 *    build mode from prepareBuildSwap (build-assembly.ts), v1 and order mode through
 *    inspectBeforeSigning (prepare-swap.ts). A refusal throws; nothing is signed.
 * 3. sign and 4. send: the inspected bytes signed in memory and journaled before they are sent
 *    (send-swap.ts; order mode: order-swap.ts with order-outcome.ts).
 * 5. judge: confirmed, failed or PROVEN expired (outcome.ts, order-outcome.ts); the chain's
 *    amounts and rent become the fill (fill.ts); a proven-expired exit is re-sent with a higher
 *    fee (exit-fees.ts). The executor (executor.ts) runs stages 1 to 5 for one swap.
 * 6. record: the journal (journal.ts), the settlement of live fills (settlement.ts,
 *    settlement-recorder.ts, settlement-pending.ts), the reconciler of pending swaps
 *    (reconciler.ts), token-account closes (close-token-account.ts).
 *
 * Code outside this folder imports only this file (test/structure/live-module.test.ts).
 */
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import type { DatabaseHandle } from "../../db/client.ts";
import { PositionRepository } from "../../db/repositories/positions.ts";
import { TradingAgentRepository } from "../../db/repositories/trading-agents.ts";
import type { EventBus } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import { type FetchLike, HttpClient } from "../../market/http-client.ts";
import type { MarketServices } from "../../market/index.ts";
import { JITO_MAINNET_TIP_ACCOUNTS, JITO_SERVICE, JitoClient } from "../../market/jito.ts";
import { MintInfoSource } from "../../market/mint-info.ts";
import { ObservedSolanaRpcClient } from "../../market/observed-solana-rpc.ts";
import { RpcRequestBudget } from "../../market/rpc-budget.ts";
import type { SolanaRpcClient } from "../../market/solana-rpc.ts";
import type { Market } from "../../market/types.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import { Big } from "../../money.ts";
import { LiveDepositService } from "../../wallets/live-balances.ts";
import type { LiveWalletRegistry } from "../../wallets/live-wallet-registry.ts";
import { TradeBook } from "../settlement/bookkeeping.ts";
import { TradeReporter } from "../settlement/post-commit.ts";
import { TokenScreen } from "../token-screen.ts";
import { rpcInspectorChain, rpcSendChain } from "./chain-reads.ts";
import { TokenAccountCloser } from "./close-token-account.ts";
import { type ConfirmationOptions, LiveExecutor } from "./executor.ts";
import { allowedPrograms } from "./inspection-rules.ts";
import { LiveTradeJournal } from "./journal.ts";
import type { BuildSettings } from "./prepare-build.ts";
import { priorityFeeSettingOf } from "./priority-fee.ts";
import { LiveReconciler, type ReconcileReport } from "./reconciler.ts";
import { LiveSettlement } from "./settlement.ts";

// What the rest of the service uses of the live path besides LiveTrading: the simulation's fee
// estimate shares the build path's (simulation-priority-fee.ts), the engine the journal's action
// check and the recorded price (trading-engine.ts).
export { writableAccounts } from "./build-assembly.ts";
export { recordedPriceSol } from "./floor.ts";
export { ActionAlreadyTakenError, saleIntent } from "./journal.ts";
export { capForTrade, estimatePriorityFee, type PriorityFeeSetting, priorityFeeSettingOf } from "./priority-fee.ts";

// Live trading wired together (issue: live trading): the JSON-RPC client, the swap journal, the
// executor (when the swap aggregator is configured too), the settlement the engine hands live
// fills to, the reconciler the monitor runs each tick, and the deposit check of live wallets.
// Absent (null) when SOLANA_RPC_URL is empty.
//
// Safety switches (README "Going live"): automatic live trades need LIVE_TRADING_ENABLED and the
// agent's automatedTradingLive; the entry rules check both (eligibility), and so does the monitor
// before a live stop-loss, take-profit, stale-trade or DCA (`automaticAllowed`). A manual close
// needs neither: it is the operator's own decision.

export interface LiveTradingOptions {
  /** Confirmation polling: how often and how many times (the wait itself is the Clock's). */
  confirmation?: ConfirmationOptions;
  /** RPC request timeout; default HTTP_TIMEOUT_MS. */
  timeoutMs?: number;
  fetch?: FetchLike;
}

export interface LiveTradingDeps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  market: Pick<Market, "quotes" | "solPrice" | "tokenPrices"> &
    Partial<Pick<MarketServices, "swapApi" | "liveSwapV2" | "reachability" | "prober">>;
  wallets: LiveWalletRegistry;
  /** The engine's SOL price (late-bound: the engine is built after this). */
  solUsd(): Promise<Big>;
}

export class LiveTrading {
  readonly rpc: SolanaRpcClient;
  /** Every request of `rpc` counts here; background readers (copy trading) ask it first. */
  readonly rpcBudget: RpcRequestBudget;
  readonly journal: LiveTradeJournal;
  /** null when the swap aggregator is not configured (no quotes, no swaps). */
  readonly executor: LiveExecutor | null;
  readonly settlement: LiveSettlement;
  readonly reconciler: LiveReconciler;
  readonly deposits: LiveDepositService;
  /** Closes the emptied token account of a closed position, for its rent. */
  readonly closer: TokenAccountCloser;
  /** Mint accounts over this RPC (decimals, token program, authorities, transfer fee), cached. */
  readonly mintInfo: MintInfoSource;
  private readonly agents: TradingAgentRepository;

  constructor(
    private readonly config: Pick<
      Config,
      | "SOLANA_RPC_URL"
      | "SOLANA_CONFIRM_RPC_URL"
      | "HTTP_TIMEOUT_MS"
      | "LIVE_PRIORITY_FEE_MAX"
      | "LIVE_PRIORITY_FEE_MAX_BPS"
      | "LIVE_PRIORITY_FEE_PERCENTILE"
      | "LIVE_COMPUTE_UNIT_LIMIT"
      | "JITO_BLOCK_ENGINE_URL"
      | "JITO_TIP_LAMPORTS"
      | "JITO_TIP_ACCOUNTS"
      | "LIVE_EXIT_PRIORITY_FEE_MAX"
      | "LIVE_SIMULATE_BEFORE_SEND"
      | "LIVE_TRADING_ENABLED"
      | "LIVE_EXTRA_PROGRAMS"
      | "TOKEN_TRANSFER_HOOK_ALLOWLIST"
    >,
    readonly d: LiveTradingDeps,
    opts: LiveTradingOptions = {},
  ) {
    const sqlite = d.database.sqlite;
    this.rpcBudget = new RpcRequestBudget(d.clock);
    this.rpc = new ObservedSolanaRpcClient(
      {
        budget: this.rpcBudget,
        url: config.SOLANA_RPC_URL,
        timeoutMs: opts.timeoutMs ?? config.HTTP_TIMEOUT_MS,
        fetch: opts.fetch,
        logger: d.logger,
      },
      d.market.reachability,
    );
    // Asked once a minute when nothing else did (GET /data-sources/status, /health).
    d.market.prober?.add("solanaRpc", () => this.rpc.call("getBlockHeight", [{ commitment: "confirmed" }]));
    this.journal = new LiveTradeJournal(d.database, d.clock);
    this.mintInfo = new MintInfoSource({ rpc: this.rpc, clock: d.clock });
    this.agents = new TradingAgentRepository(sqlite);
    const sender = rpcSendChain(this.rpc, this.confirmNode(opts));
    const inspector = rpcInspectorChain(this.rpc);
    const positions = new PositionRepository(sqlite);
    this.closer = new TokenAccountCloser({
      rpc: this.rpc,
      inspector,
      sender,
      wallets: d.wallets,
      mintInfo: this.mintInfo,
      hasUnresolved: (agentId, mint, wallet) => this.journal.hasUnresolved(agentId, mint, wallet),
      openPositionHolds: (wallet, mint) => positions.openForWalletToken(wallet, mint),
      db: d.database,
      clock: d.clock,
      logger: d.logger,
      confirmation: opts.confirmation,
    });
    const build = this.buildSettings(opts);
    // SWAP_API=order: live swaps, and the screen's reverse quotes, through Jupiter's /order.
    const orders = d.market.swapApi === "order" ? (d.market.liveSwapV2 ?? null) : null;
    this.executor = d.market.quotes.configured
      ? new LiveExecutor({
          quotes: d.market.quotes,
          prices: d.market.tokenPrices,
          rpc: this.rpc,
          inspector,
          sender,
          allowedPrograms: allowedPrograms(config.LIVE_EXTRA_PROGRAMS),
          wallets: d.wallets,
          journal: this.journal,
          logger: d.logger,
          clock: d.clock,
          priorityFee: config.LIVE_PRIORITY_FEE_MAX,
          priorityFeeMaxBps: config.LIVE_PRIORITY_FEE_MAX_BPS,
          build,
          exitPriorityFeeMax: config.LIVE_EXIT_PRIORITY_FEE_MAX,
          // Unset: off when the transaction is assembled here (build), whose inspection simulated
          // the very message that is signed; on for a transaction the aggregator built.
          simulateBeforeSend: config.LIVE_SIMULATE_BEFORE_SEND ?? (build === null || orders !== null),
          confirmation: opts.confirmation,
          orders,
          screen: this.tokenScreen(build, orders),
        })
      : null;
    this.settlement = new LiveSettlement({
      book: new TradeBook(d.database),
      clock: d.clock,
      logger: d.logger,
      reporter: new TradeReporter({ logger: d.logger, metrics: d.metrics, events: d.events }),
      journal: this.journal,
      closer: this.closer,
    });
    this.reconciler = new LiveReconciler({
      journal: this.journal,
      rpc: this.rpc,
      sender,
      settlement: this.settlement,
      logger: d.logger,
      solUsd: () => d.solUsd(),
    });
    this.deposits = new LiveDepositService({
      sqlite,
      clock: d.clock,
      logger: d.logger,
      rpc: this.rpc,
      hasUnresolvedTrade: (w) => this.journal.hasUnresolvedForWallet(w),
      solUsd: () => {
        const p = d.market.solPrice.current();
        return p ? new Big(p.price) : null;
      },
    });
  }

  /** The screen before a live buy; its reverse quote asks the API live swaps use. */
  private tokenScreen(
    build: BuildSettings | null,
    orders: LiveTradingDeps["market"]["liveSwapV2"] | null,
  ): TokenScreen {
    const d = this.d;
    return new TokenScreen({
      mintInfo: this.mintInfo,
      // build mode: the reverse quote asks /build too, the buying wallet as its taker; order
      // mode asks /order (no taker: a quote without a transaction).
      quotes: orders
        ? orders
        : build
          ? { quote: async (r, taker) => (await build.v2.build(r, taker ?? "")).quote }
          : d.market.quotes,
      logger: d.logger,
      clock: d.clock,
      transferHookAllowlist: this.config.TOKEN_TRANSFER_HOOK_ALLOWLIST,
    });
  }

  /**
   * SOLANA_CONFIRM_RPC_URL: the second node an expiry proof needs too (not counted in rpcBudget,
   * which paces reads of SOLANA_RPC_URL's provider); undefined when unset.
   */
  private confirmNode(opts: LiveTradingOptions): SolanaRpcClient | undefined {
    const c = this.config;
    if (!c.SOLANA_CONFIRM_RPC_URL) return undefined;
    const node = new ObservedSolanaRpcClient(
      {
        url: c.SOLANA_CONFIRM_RPC_URL,
        timeoutMs: opts.timeoutMs ?? c.HTTP_TIMEOUT_MS,
        fetch: opts.fetch,
        logger: this.d.logger,
      },
      this.d.market.reachability,
      "solanaConfirmRpc",
    );
    // Shown in GET /data-sources/status (issue 34 item 5); asked once a minute when idle.
    this.d.market.prober?.add("solanaConfirmRpc", () => node.call("getBlockHeight", [{ commitment: "confirmed" }]));
    return node;
  }

  /**
   * SWAP_API=build (the default): the v2 client, our fee settings, and Jito when
   * JITO_BLOCK_ENGINE_URL is set. SWAP_API=order has its own path and builds only a swap whose
   * order was refused for its route's bytes (issue 40). null for v1.
   */
  private buildSettings(opts: LiveTradingOptions): BuildSettings | null {
    const v2 = this.d.market.liveSwapV2;
    if (this.d.market.swapApi === "v1" || !v2) return null;
    const c = this.config;
    const jito = c.JITO_BLOCK_ENGINE_URL
      ? new JitoClient(
          new HttpClient({
            service: JITO_SERVICE,
            baseUrl: c.JITO_BLOCK_ENGINE_URL,
            timeoutMs: opts.timeoutMs ?? c.HTTP_TIMEOUT_MS,
            timer: this.d.clock,
            fetch: opts.fetch,
            logger: this.d.logger,
            reachability: this.d.market.reachability,
          }),
        )
      : null;
    return {
      v2,
      rpc: this.rpc,
      fee: priorityFeeSettingOf(c),
      jito: jito
        ? {
            client: jito,
            tipLamports: c.JITO_TIP_LAMPORTS,
            pinned: new Set(c.JITO_TIP_ACCOUNTS.length > 0 ? c.JITO_TIP_ACCOUNTS : JITO_MAINNET_TIP_ACCOUNTS),
          }
        : null,
    };
  }

  /** The monitor's first step each tick. */
  reconcile(): Promise<ReconcileReport> {
    return this.reconciler.reconcile();
  }

  /** A swap of this token by this agent is in doubt: no rule acts on the position meanwhile. */
  pendingFor(agentId: string, tokenAddress: string): boolean {
    return this.journal.hasUnresolved(agentId, tokenAddress);
  }

  /** LIVE_TRADING_ENABLED and the agent's automatedTradingLive: both needed for automatic live trades. */
  automaticAllowed(agentId: string): boolean {
    if (!this.config.LIVE_TRADING_ENABLED) return false;
    return this.agents.automatedTradingLive(agentId);
  }
}

/**
 * Live trading when SOLANA_RPC_URL is set; null otherwise, and on the demo market, where nothing
 * leaves the machine (PRODUCT.md §7) and live trading cannot run anyway.
 */
export function createLiveTrading(
  config: Config,
  deps: LiveTradingDeps,
  opts: LiveTradingOptions = {},
): LiveTrading | null {
  if (!config.SOLANA_RPC_URL || config.DEMO_MARKET) return null;
  return new LiveTrading(config, deps, opts);
}
