import { resolveStoredConfig } from "../agents/trading-config.ts";
import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { GroupCommit } from "../db/group-commit.ts";
import type { PositionRecord, PositionRepository } from "../db/repositories/positions.ts";
import {
  AppError,
  ConflictError,
  ExternalServiceError,
  isStorageError,
  LiveTradePendingError,
  NotFoundError,
  OperationalError,
  publicErrorMessage,
  TradingError,
  ValidationError,
} from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import { InsufficientBalanceError, readBalance } from "../ledgers/balance-ledger.ts";
import type { Logger } from "../logger.ts";
import type { Market } from "../market/types.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { Big, decNum, SOL_MINT, toAtomic } from "../money.ts";
import { BuyPath } from "./buy-path.ts";
import type { SwapFill, TradeExecutor } from "./executor.ts";
import type { BuyGate } from "./guard-rails.ts";
import { ActionAlreadyTakenError, recordedPriceSol, saleIntent } from "./live/index.ts";
import type { PositionLocks } from "./position-locks.ts";
import { roundTokens } from "./rules/decimal-input.ts";
import { exitImpactCapBps, floorBpsFor, resolveSlippageBps } from "./rules/slippage.ts";
import { takeProfitFloorLamports } from "./rules/take-profit.ts";
import type { CloseReason, TradingMode } from "./rules/types.ts";
import { TradeBook } from "./settlement/bookkeeping.ts";
import { TradeReporter } from "./settlement/post-commit.ts";
import { SimulationSettlement } from "./settlement/simulation.ts";
import {
  type CloseResult,
  type SaleRequest,
  type SaleSettled,
  type Settled,
  type Settlement,
  type SettleOutcome,
  saleContext,
  saleReason,
  saleSignalId,
} from "./settlement/types.ts";
import { NOTHING_SOLD, type OpenRequest, type OpenResult, type SaleResult } from "./trade-requests.ts";

export type { CloseResult } from "./settlement/types.ts";
export type { OpenRequest, OpenResult, SaleResult } from "./trade-requests.ts";

// The trading engine's execution path (PRODUCT.md §4). Every
// trade — signal buy, DCA buy, take-profit sale, close — goes the same way:
//   1. decide and size (pure rules, done by the caller; cheap balance pre-checks here); a buy is
//      admitted by the guard rails' one gate (guard-rails.ts admitBuy) and swapped only through
//      swapBuy with its pass, whoever asked for it (issue 41 item 2),
//   2. the executor of the agent's mode swaps (network I/O, outside any transaction),
//   3. the Settlement of that mode records the fill in ONE synchronous SQLite transaction
//      (settlement/simulation.ts, live/settlement.ts),
//   4. the post-commit step reports it: log line, metric, events (settlement/post-commit.ts).
// A failure at any step leaves the database as it was and is reported as a failed trade (SPEC
// "Facts about trading behaviour"). A trade another run already made is a "skipped" result.

export interface TradingEngineDeps {
  sqlite: DatabaseHandle["sqlite"];
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  market: Pick<Market, "solPrice" | "tokenPrices" | "decimals">;
  executors: Partial<Record<TradingMode, TradeExecutor>>;
  positions: PositionRepository;
  locks: PositionLocks;
  /** How live fills are recorded (src/trading/live/settlement.ts); simulation's is built here. */
  live?: Settlement;
  /**
   * Simulation settlements of concurrent trades share one commit, each in its own savepoint
   * (src/db/group-commit.ts): a fan-out to 1,000 agents commits a handful of times, not 1,000.
   * Live settlements always commit on their own, at once.
   */
  commits?: GroupCommit;
  /** Mint accounts over RPC: a token's decimals when an RPC is configured. */
  mintInfo?: { get(mint: string): Promise<{ decimals: number }> } | null;
  /** The guard rails' gate every buy passes: pause, breaker, exposure, open positions. */
  gate: BuyGate;
}

export class TradingEngine {
  private readonly log: Logger;
  private readonly book: TradeBook;
  private readonly reporter: TradeReporter;
  private readonly settlements: Record<TradingMode, Settlement>;
  private readonly buys: BuyPath;

  constructor(private readonly d: TradingEngineDeps) {
    this.log = d.logger.child({ component: "trading" });
    this.book = new TradeBook({ sqlite: d.sqlite }, d.positions);
    this.reporter = new TradeReporter({ logger: d.logger, metrics: d.metrics, events: d.events });
    const simulation = new SimulationSettlement(this.book, d.clock, this.log);
    // Without live trading configured a live executor (tests' own) settles like a simulation.
    this.settlements = { simulation, live: d.live ?? simulation };
    this.buys = new BuyPath({
      sqlite: d.sqlite,
      gate: d.gate,
      log: this.log,
      metrics: d.metrics,
      reporter: this.reporter,
      executorFor: (mode) => this.executorFor(mode),
      tokenDecimals: (mint) => this.tokenDecimals(mint),
      solUsd: () => this.solUsd(),
      assertSol: (agentId, walletAddress, amount) => this.assertSol(agentId, walletAddress, amount),
      settle: (mode, run) => this.settle(mode, run),
      alreadyTraded: (agentId, signalId, action) => this.alreadyTraded(agentId, signalId, action),
    });
  }

  executorFor(mode: TradingMode): TradeExecutor {
    const ex = this.d.executors[mode];
    if (!ex)
      throw new TradingError(
        mode === "live"
          ? "Live trading is not available: no live executor is configured"
          : "Simulation trading is not available: the swap aggregator is not configured",
      );
    return ex;
  }

  /**
   * USD per SOL now: the stream's value, or one fetched. It may be stale: use it for the USD
   * columns a record shows, never to decide a trade (solUsdReading).
   */
  async solUsd(): Promise<Big> {
    const current = this.d.market.solPrice.current() ?? (await this.d.market.solPrice.fetchCurrent());
    return new Big(current.price);
  }

  /**
   * USD per SOL with its staleness, for decisions: a stale value is refreshed once first (the
   * stream or poll may simply not have run); still stale, the caller must price in SOL or wait.
   */
  async solUsdReading(): Promise<{ price: Big; stale: boolean }> {
    const source = this.d.market.solPrice;
    let current = source.current() ?? (await source.fetchCurrent());
    if (current.isStale && source.refresh) current = await source.refresh().catch(() => current);
    return { price: new Big(current.price), stale: current.isStale };
  }

  private async tokenDecimals(mint: string): Promise<number> {
    // The mint account first when an RPC is configured: it is the authority, the screening reads
    // the same (cached) account, and the RPC's budget is not the swap aggregator's, whose next
    // slot the buy quote needs. The price source answers without an RPC, or when the RPC fails.
    if (this.d.mintInfo) {
      try {
        return (await this.d.mintInfo.get(mint)).decimals;
      } catch (err) {
        if (err instanceof TradingError) throw err;
      }
    }
    const map = await this.d.market.decimals.getDecimals([mint]);
    const dec = map.get(mint);
    if (dec !== undefined) return dec;
    const why = this.d.market.decimals.whyUnknown?.(mint) ?? `Token decimals unknown for ${mint}`;
    throw new TradingError(`${why}; cannot size the trade`);
  }

  /** The status of the trade holding this signal's key: confirmed, pending, failed; null when none. */
  tradeStatus(agentId: string, signalId: number, action: "BUY" | "SELL"): string | null {
    return this.book.keys.transactionStatus(agentId, signalId, action);
  }

  /** Whether this agent already made this trade for this signal (crash recovery, retries). */
  alreadyTraded(agentId: string, signalId: number, action: "BUY" | "SELL"): boolean {
    return this.book.keys.has(agentId, signalId, action);
  }

  /** Snapshot of an agent wallet's SOL balance and total value (after a trade, or hourly). */
  snapshot(
    agentId: string,
    walletAddress: string,
    solUsd: Big | null,
    now: string,
    reason: "trade" | "hourly" = "trade",
  ): void {
    this.book.snapshot(agentId, walletAddress, solUsd, now, reason);
  }

  /** Refuses a buy the wallet cannot pay before any swap: a live swap cannot be taken back. */
  private assertSol(agentId: string, walletAddress: string, amount: Big): void {
    const available = readBalance({ sqlite: this.d.sqlite }, { agentId, walletAddress, tokenAddress: SOL_MINT });
    if (available.lt(amount))
      throw new TradingError("Insufficient SOL balance", { required: decNum(amount), available: decNum(available) });
  }

  /** Settles a fill with the mode's settlement and reports what it recorded (the post-commit step). */
  private async settle<T extends Settled>(
    mode: TradingMode,
    run: (s: Settlement) => SettleOutcome<T>,
  ): Promise<SettleOutcome<T>> {
    const settlement = this.settlements[mode];
    const grouped = this.d.commits && settlement === this.settlements.simulation && mode === "simulation";
    const outcome = grouped ? await this.d.commits!.write(() => run(settlement)) : run(settlement);
    if (outcome.status === "settled") this.reporter.settled(outcome.trade, settlement.logger);
    return outcome;
  }

  /** Opens a position for an eligible agent (signal buy): one result says how it ended (OpenResult). */
  openPosition(req: OpenRequest): Promise<OpenResult> {
    return this.buys.open(req);
  }

  /**
   * DCA order k of a position (monitor, under the position's lock). `amountSol` comes from the
   * position's own openingSol (never from a ledger row a user can edit).
   */
  dcaBuy(p: PositionRecord, order: number, amountSol: Big): Promise<"recorded" | "skipped" | "failed"> {
    return this.buys.dca(p, order, amountSol);
  }

  /**
   * Sells `amount` tokens of a position (take-profit, a manual share) or everything that remains (close), under
   * the caller's lock. A close writes the SELL and the historical swap; P/L includes the profit
   * earlier take-profit sales locked in. Throws on failure (the close endpoint maps it; the
   * monitor catches) and LiveTradePendingError while a live sale awaits the chain.
   */
  async sell(p: PositionRecord, sale: SaleRequest, tellFailure = true): Promise<SaleResult> {
    const mode = p.tradingMode;
    const ctx = { agentId: p.agentId, positionId: p.id, tokenAddress: p.tokenAddress, ...saleContext(sale) };
    const reason = saleReason(sale);
    const signalId = saleSignalId(sale);
    try {
      const amount = sale.kind === "close" ? new Big(p.remainingAmount) : (sale.amount ?? new Big(0));
      const held = readBalance(
        { sqlite: this.d.sqlite },
        { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress },
      );
      if (held.lt(amount)) throw new InsufficientBalanceError(p.tokenAddress, amount, held);
      if (signalId !== undefined && this.alreadyTraded(p.agentId, signalId, "SELL"))
        return { status: "skipped", reason: "exit already done" };
      const config = resolveStoredConfig(p.configOverrides);
      const solUsd = await this.solUsd();
      const slippageBps = resolveSlippageBps(null, config.slippage);
      // Nothing left to sell (take-profit sold it all): the close records the outcome only.
      const fill: SwapFill = amount.gt(0)
        ? await this.executorFor(mode).swap({
            agentId: p.agentId,
            walletAddress: p.walletAddress,
            side: "SELL",
            tokenMint: p.tokenAddress,
            tokenDecimals: p.tokenDecimals,
            amountAtomic: toAtomic(amount, p.tokenDecimals),
            slippageBps,
            maxBps: config.slippage.maxBps,
            maxImpactBps: exitImpactCapBps(reason, config.slippage),
            // A take-profit sells at its level or not at all: the level's price less slippage.
            ...(sale.kind === "take_profit" && sale.levelPriceSol
              ? { minOutputAtomic: takeProfitFloorLamports(amount, sale.levelPriceSol, slippageBps) }
              : {}),
            floorBps: floorBpsFor(reason, config.slippage),
            referencePriceSol: recordedPriceSol(p.lastPriceSol),
            intent: saleIntent(p.id, sale),
          })
        : NOTHING_SOLD;
      // With nothing swapped there is no fill for the chain to confirm: the close books the outcome
      // only, in the ledger's way (the simulation settlement, whatever the mode).
      const outcome = await this.settle(amount.gt(0) ? mode : "simulation", (s) => s.sell(p, sale, fill, solUsd));
      if (outcome.status === "pending") throw new LiveTradePendingError(outcome.signature);
      if (outcome.status === "skipped") return outcome;
      return { status: "sold", closed: outcome.trade.closed, trade: outcome.trade };
    } catch (err) {
      if (err instanceof LiveTradePendingError || err instanceof OperationalError) throw err;
      // Done already: nothing to do. Still in doubt: the caller hears 409, as for any pending swap.
      if (err instanceof ActionAlreadyTakenError && !err.inDoubt) {
        this.log.info("sale skipped: it was already made", ctx);
        return { status: "skipped", reason: err.message };
      }
      // tellFailure false: a paused position's retry, logged only (its owner was told of the pause).
      this.reporter.failed(ctx, tellFailure ? p.userId : null, "sell", mode, err, this.log);
      throw err;
    }
  }

  /**
   * Closes an open position: manual close endpoint, exit signal (and, through closeUnderLock, the
   * monitor's stop-loss and stale exits). Takes the position's lock, re-reads it, and answers 404
   * when it is no longer open (someone else sold).
   */
  async closePosition(
    positionId: string,
    reason: CloseReason,
    opts: { userId?: string; agentId?: string; signalId?: number } = {},
  ): Promise<CloseResult> {
    return this.d.locks.withLock(positionId, async () => {
      const p = opts.userId
        ? this.d.positions.openOwned(opts.userId, positionId, opts.agentId)
        : this.d.positions.byId(positionId);
      return this.closeUnderLock(p, reason, opts);
    });
  }

  /**
   * The one close every caller ends in, for a caller that holds the position's lock and has just
   * re-read the row (the monitor). NotFoundError when it is no longer open or another run sold it.
   */
  async closeUnderLock(
    p: PositionRecord | null,
    reason: CloseReason,
    opts: { signalId?: number; raw?: boolean; tellFailure?: boolean } = {},
  ): Promise<CloseResult> {
    if (p?.status !== "open") throw new NotFoundError("Position not found");
    const r = await this.sellForCaller(p, { kind: "close", reason, signalId: opts.signalId }, opts);
    if (r.status === "skipped") throw new NotFoundError("Position not found");
    if (!r.closed) throw new TradingError("Close produced no result");
    return r.closed;
  }

  /**
   * Sells `percent` % (more than 0, less than 100) of what an open position holds, for its owner
   * (POST .../sell, the position page's sell buttons; issue 44 item 5), through sell(): the exit
   * path a take-profit sale takes, under the position's lock, so two requests sell one after the
   * other, each its share of what the other left. `signalId` is the request's manual SELL signal:
   * its trade key (simulation) and journal intent (live) make the sale happen once. 100 % is the
   * close (closePosition with reason manual).
   */
  async sellPart(
    positionId: string,
    percent: Big,
    opts: { userId: string; agentId?: string; signalId: number },
  ): Promise<SaleSettled> {
    return this.d.locks.withLock(positionId, async () => {
      const p = this.d.positions.byId(positionId);
      if (!p || p.userId !== opts.userId || (opts.agentId !== undefined && p.agentId !== opts.agentId))
        throw new NotFoundError("Position not found");
      if (p.status !== "open") throw new ConflictError("Position is already closed");
      const amount = roundTokens(new Big(p.remainingAmount).times(percent).div(100), p.tokenDecimals);
      if (amount.lte(0))
        throw new ValidationError(`${percent} % of the position is less than the smallest unit of the token`, {
          remainingAmount: p.remainingAmount,
        });
      const sale: SaleRequest = { kind: "manual_sale", amount, percent: percent.toString(), signalId: opts.signalId };
      const r = await this.sellForCaller(p, sale, {});
      if (r.status === "skipped") throw new ConflictError("This sale was already made", { reason: r.reason });
      return r.trade;
    });
  }

  /** sell() for a caller that answers a person: a provider's failure becomes a 502 (ExternalServiceError). */
  private async sellForCaller(
    p: PositionRecord,
    sale: SaleRequest,
    opts: { raw?: boolean; tellFailure?: boolean },
  ): Promise<SaleResult> {
    try {
      return await this.sell(p, sale, opts.tellFailure);
    } catch (err) {
      // raw: the engine's own error (the monitor: an OperationalError stops its loop).
      if (opts.raw || (err instanceof AppError && !(err instanceof OperationalError))) throw err;
      // A storage error is not a provider's: it keeps its 500 and its text stays in the log.
      if (isStorageError(err)) throw err;
      throw new ExternalServiceError("trading", publicErrorMessage(err));
    }
  }
}
