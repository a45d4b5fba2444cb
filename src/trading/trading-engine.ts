import type { Database } from "bun:sqlite";
import { resolveStoredConfig, type TradingConfig } from "../agents/trading-config.ts";
import type { Clock } from "../clock.ts";
import { inTransaction } from "../db/client.ts";
import { AppError, ExternalServiceError, NotFoundError, TradingError } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import { credit, debit, InsufficientBalanceError, readBalance } from "../ledgers/balance-ledger.ts";
import type { Logger } from "../logger.ts";
import type { Market } from "../market/types.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { Big, decNum, decStr, SOL_DECIMALS, SOL_MINT, toAtomic } from "../money.ts";
import type { SwapFill, TradeExecutor } from "./executor.ts";
import { type LiveSettlement, LiveTradePendingError } from "./live-settlement.ts";
import type { PositionLocks } from "./position-locks.ts";
import type { PositionRecord, PositionStore } from "./position-store.ts";
import type { DcaFillResult } from "./rules/dca.ts";
import { resolveSlippageBps } from "./rules/slippage.ts";
import type { CloseReason, TradingMode } from "./rules/types.ts";
import {
  applyDcaToPosition,
  buyAmounts,
  buySides,
  type CloseResult,
  insertOpenPosition,
  insertTradeKey,
  insertTransaction,
  recordSaleOnPosition,
  recordWalletSnapshot,
  saleAmounts,
  sellSides,
} from "./settlement-writes.ts";

export type { CloseResult } from "./settlement-writes.ts";

// The trading engine's execution path (issue: trading engine; PRODUCT.md §4). Every trade —
// signal buy, DCA buy, take-profit sale, close — goes the same way:
//   1. decide and size (pure rules, done by the caller),
//   2. the executor swaps (network I/O, outside any transaction),
//   3. ONE synchronous SQLite transaction settles everything: ledger debit and credit, the
//      transaction record, the position, the idempotency key, the balance snapshot (the rows
//      through settlement-writes.ts, shared with live-settlement.ts).
// A failure at any step leaves the database as it was and is logged (SPEC "Facts about trading
// behaviour"). The idempotency key (agent, signal, action) is written in the settling
// transaction, so a signal never trades twice for an agent, even across a crash.

export interface AgentForTrade {
  id: string;
  userId: string;
  name: string;
  tradingMode: TradingMode;
}

export interface OpenRequest {
  agent: AgentForTrade;
  config: TradingConfig;
  walletAddress: string;
  signal: { id: number; tokenAddress: string; symbol: string | null };
  sizeSol: Big;
  /** Market data symbol, when the caller fetched it. */
  marketSymbol?: string | null;
  /** Told why, when the trade failed (the signal evaluation keeps the reason). */
  onFailure?: (reason: string) => void;
  /** Quotes shared across the agents trading this signal (see SwapRequest.sharedQuotes). */
  sharedQuotes?: Map<string, Promise<import("../market/types.ts").Quote>>;
}

/** A trade that must not happen (already done for this signal, or position gone). Not an error for the user. */
export class TradeSkipped extends Error {}

export interface TradingEngineDeps {
  sqlite: Database;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  market: Pick<Market, "solPrice" | "tokenPrices" | "decimals">;
  executors: Partial<Record<TradingMode, TradeExecutor>>;
  positions: PositionStore;
  locks: PositionLocks;
  /** Live fills are recorded from the chain (src/trading/live-settlement.ts), not by the ledger debit below. */
  live?: LiveSettlement;
}

export class TradingEngine {
  private readonly log: Logger;

  constructor(private readonly d: TradingEngineDeps) {
    this.log = d.logger.child({ component: "trading" });
  }

  private nowIso(): string {
    return new Date(this.d.clock.now()).toISOString();
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

  /** USD per SOL now: the stream's value, or one fetched. */
  async solUsd(): Promise<Big> {
    const current = this.d.market.solPrice.current() ?? (await this.d.market.solPrice.fetchCurrent());
    return new Big(current.price);
  }

  private async tokenDecimals(mint: string): Promise<number> {
    const map = await this.d.market.decimals.getDecimals([mint]);
    const dec = map.get(mint);
    if (dec === undefined) throw new TradingError(`Token decimals unknown for ${mint}; cannot size the trade`);
    return dec;
  }

  private tradeFailed(
    ctx: Record<string, unknown>,
    userId: string,
    side: "buy" | "sell",
    mode: TradingMode,
    err: unknown,
  ): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.log.warn("trade failed", {
      ...ctx,
      side,
      mode,
      reason,
      ...(err instanceof AppError && err.details ? { details: err.details } : {}),
    });
    this.d.metrics.trades.inc({ mode, side, outcome: "failed" });
    this.d.events.publish("trade.failed", userId, { ...ctx, side, mode, reason });
  }

  /** Whether this agent already made this trade for this signal (crash recovery, retries). */
  alreadyTraded(agentId: string, signalId: number, action: "BUY" | "SELL"): boolean {
    return this.hasTradeKey(agentId, signalId, action);
  }

  private hasTradeKey(agentId: string, signalId: number, action: string): boolean {
    return (
      this.d.sqlite
        .query<{ n: number }, [string, number, string]>(
          "SELECT count(*) AS n FROM trade_idempotency WHERE agent_id = ? AND signal_id = ? AND action = ?",
        )
        .get(agentId, signalId, action)!.n > 0
    );
  }

  private writeTradeKey(agentId: string, signalId: number, action: string, transactionId: string, now: string): void {
    // Another settle already recorded this (agent, signal, action): abort this transaction.
    if (!insertTradeKey(this.d.sqlite, agentId, signalId, action, transactionId, now))
      throw new TradeSkipped(`signal ${signalId} already traded (${action}) by agent ${agentId}`);
  }

  /** Snapshot of an agent wallet's SOL balance and total value (after a trade, or hourly). */
  snapshot(
    agentId: string,
    walletAddress: string,
    solUsd: Big | null,
    now: string,
    reason: "trade" | "hourly" = "trade",
  ): void {
    recordWalletSnapshot(this.d.sqlite, agentId, walletAddress, solUsd, now, reason);
  }

  /**
   * Opens a position for an eligible agent (signal buy). Returns the position id, or null when
   * the trade failed (logged, event published, nothing changed) or was already done.
   */
  async openPosition(req: OpenRequest): Promise<string | null> {
    const { agent, config, signal } = req;
    const mode = agent.tradingMode;
    const ctx = { agentId: agent.id, signalId: signal.id, tokenAddress: signal.tokenAddress };
    if (this.hasTradeKey(agent.id, signal.id, "BUY")) {
      this.log.info("trade skipped: signal already traded by this agent", ctx);
      return null;
    }
    try {
      const executor = this.executorFor(mode);
      const [decimals, solUsd] = await Promise.all([this.tokenDecimals(signal.tokenAddress), this.solUsd()]);
      const lamports = toAtomic(req.sizeSol, SOL_DECIMALS);
      if (lamports <= 0n) throw new TradingError("Trade size rounds to zero");
      const slippageBps = resolveSlippageBps(null, config.slippage);
      // Cheap pre-check before any network call; the debit (size plus fees) inside the settling
      // transaction is the authority.
      const available = readBalance(
        { sqlite: this.d.sqlite },
        { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: SOL_MINT },
      );
      if (available.lt(req.sizeSol)) {
        throw new TradingError("Insufficient SOL balance", {
          required: decNum(req.sizeSol),
          available: decNum(available),
        });
      }
      const fill = await executor.swap({
        agentId: agent.id,
        walletAddress: req.walletAddress,
        side: "BUY",
        tokenMint: signal.tokenAddress,
        tokenDecimals: decimals,
        amountAtomic: lamports,
        slippageBps,
        maxBps: config.slippage.maxBps,
        sharedQuotes: req.sharedQuotes,
      });
      // Live: recorded from the chain, or as a pending trade reconciled by signature (live-settlement.ts).
      if (mode === "live" && this.d.live) {
        const symbol = signal.symbol || req.marketSymbol || signal.tokenAddress.slice(0, 6);
        return this.d.live.afterOpenSwap(
          {
            agentId: agent.id,
            userId: agent.userId,
            walletAddress: req.walletAddress,
            signalId: signal.id,
            tokenAddress: signal.tokenAddress,
            symbol,
            decimals,
          },
          fill,
          solUsd,
        );
      }
      const { solSwapped, tokens, cost } = buyAmounts(fill, decimals);
      const entrySol = solSwapped.div(tokens);
      const entryUsd = entrySol.times(solUsd);
      const symbol = signal.symbol || req.marketSymbol || signal.tokenAddress.slice(0, 6);
      const now = this.nowIso();
      const positionId = crypto.randomUUID();
      const txId = crypto.randomUUID();
      const h = { sqlite: this.d.sqlite };
      inTransaction(h, () => {
        this.writeTradeKey(agent.id, signal.id, "BUY", txId, now);
        debit(h, { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: SOL_MINT }, cost, { now });
        credit(h, { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: signal.tokenAddress }, tokens, {
          now,
          tokenSymbol: symbol,
          decimals,
        });
        insertTransaction(this.d.sqlite, {
          ...buySides({
            tokenMint: signal.tokenAddress,
            tokenSymbol: symbol,
            sol: solSwapped,
            tokens,
            tokenPriceUsd: entryUsd,
            solUsd,
            valueUsd: cost.times(solUsd),
          }),
          id: txId,
          agentId: agent.id,
          walletAddress: req.walletAddress,
          now,
          signalId: signal.id,
          fill,
          isDca: false,
          isTakeProfit: false,
          mode,
          status: fill.status,
          positionId,
        });
        insertOpenPosition(this.d.sqlite, {
          id: positionId,
          agentId: agent.id,
          walletAddress: req.walletAddress,
          mode,
          tokenAddress: signal.tokenAddress,
          tokenSymbol: symbol,
          tokenDecimals: decimals,
          signalId: signal.id,
          entryPriceSol: entrySol,
          entryPriceUsd: entryUsd,
          tokens,
          cost,
          solUsd,
          transactionId: txId,
          transactionHash: fill.txHash,
          now,
        });
        this.snapshot(agent.id, req.walletAddress, solUsd, now);
      });
      this.log.info("trade executed", {
        ...ctx,
        side: "buy",
        mode,
        positionId,
        transactionId: txId,
        solSpent: decStr(cost),
        tokens: decStr(tokens),
        hash: fill.txHash,
      });
      this.d.metrics.trades.inc({ mode, side: "buy", outcome: "success" });
      const tradeData = {
        ...ctx,
        side: "buy",
        mode,
        transactionId: txId,
        positionId,
        amountSol: decStr(cost),
        tokens: decStr(tokens),
        hash: fill.txHash,
      };
      this.d.events.publish("trade.executed", agent.userId, tradeData);
      this.d.events.publish("position.opened", agent.userId, {
        positionId,
        agentId: agent.id,
        tokenAddress: signal.tokenAddress,
        tokenSymbol: symbol,
        amount: decStr(tokens),
        entryPriceSol: decStr(entrySol),
        signalId: signal.id,
      });
      return positionId;
    } catch (err) {
      if (err instanceof TradeSkipped) {
        this.log.info("trade skipped: signal already traded by this agent", ctx);
        return null;
      }
      this.tradeFailed(ctx, agent.userId, "buy", mode, err);
      req.onFailure?.(err instanceof Error ? err.message : String(err));
      return null;
    }
  }

  /** DCA order k of a position (monitor, under the position's lock). */
  async dcaBuy(p: PositionRecord, order: number, amountSol: Big): Promise<boolean> {
    const mode = p.tradingMode;
    const ctx = { agentId: p.agentId, positionId: p.id, tokenAddress: p.tokenAddress, dcaOrder: order };
    try {
      const config = resolveStoredConfig(p.configOverrides);
      // Refuse before swapping, as openPosition does: a live swap cannot be taken back when the
      // settling debit finds the SOL missing. The debit inside the transaction stays the authority.
      const available = readBalance(
        { sqlite: this.d.sqlite },
        { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT },
      );
      if (available.lt(amountSol))
        throw new TradingError("Insufficient SOL balance", {
          required: decNum(amountSol),
          available: decNum(available),
        });
      const solUsd = await this.solUsd();
      const fill = await this.executorFor(mode).swap({
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        side: "BUY",
        tokenMint: p.tokenAddress,
        tokenDecimals: p.tokenDecimals,
        amountAtomic: toAtomic(amountSol, SOL_DECIMALS),
        slippageBps: resolveSlippageBps(null, config.slippage),
        maxBps: config.slippage.maxBps,
      });
      if (mode === "live" && this.d.live) return this.d.live.afterDcaSwap(p, order, fill, solUsd);
      const { solSwapped, tokens, cost } = buyAmounts(fill, p.tokenDecimals);
      const now = this.nowIso();
      const txId = crypto.randomUUID();
      const h = { sqlite: this.d.sqlite };
      const next: DcaFillResult = inTransaction(h, () => {
        const fresh = this.d.positions.byId(p.id);
        if (fresh?.status !== "open" || fresh.dcaOrders !== p.dcaOrders) throw new TradeSkipped("position changed");
        debit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT }, cost, { now });
        credit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress }, tokens, {
          now,
          tokenSymbol: p.tokenSymbol,
          decimals: p.tokenDecimals,
        });
        insertTransaction(this.d.sqlite, {
          ...buySides({
            tokenMint: p.tokenAddress,
            tokenSymbol: p.tokenSymbol,
            sol: solSwapped,
            tokens,
            tokenPriceUsd: solSwapped.div(tokens).times(solUsd),
            solUsd,
            valueUsd: cost.times(solUsd),
          }),
          id: txId,
          agentId: p.agentId,
          walletAddress: p.walletAddress,
          now,
          signalId: p.signalId,
          fill,
          isDca: true,
          isTakeProfit: false,
          mode,
          status: fill.status,
          positionId: p.id,
        });
        const averaged = applyDcaToPosition(
          this.d.sqlite,
          p,
          { solSwapped, feesSol: fill.feesSol, tokens },
          solUsd,
          now,
        );
        this.snapshot(p.agentId, p.walletAddress, solUsd, now);
        return averaged;
      });
      this.log.info("trade executed", {
        ...ctx,
        side: "buy",
        mode,
        transactionId: txId,
        isDca: true,
        solSpent: decStr(cost),
        tokens: decStr(tokens),
      });
      this.d.metrics.trades.inc({ mode, side: "buy", outcome: "success" });
      this.d.events.publish("trade.executed", p.userId, {
        ...ctx,
        side: "buy",
        mode,
        transactionId: txId,
        isDca: true,
        amountSol: decStr(cost),
        tokens: decStr(tokens),
      });
      this.d.events.publish("position.updated", p.userId, {
        positionId: p.id,
        agentId: p.agentId,
        change: "dca",
        dcaOrders: next.dcaOrders,
        entryPriceSol: decStr(next.entryPriceSol),
        remainingAmount: decStr(next.remainingAmount),
      });
      return true;
    } catch (err) {
      if (err instanceof TradeSkipped) return false;
      this.tradeFailed(ctx, p.userId, "buy", mode, err);
      return false;
    }
  }

  /**
   * Sells `amount` tokens of a position (take-profit) or everything that remains (close), under
   * the caller's lock. A close writes the SELL and the historical swap; P/L includes the profit
   * earlier take-profit sales locked in. Throws on failure (the close endpoint maps it); the
   * monitor catches.
   */
  async sell(
    p: PositionRecord,
    opts:
      | { kind: "close"; reason: CloseReason; signalId?: number }
      | {
          kind: "take_profit";
          amount: Big;
          levelsHit: number;
          moonBagActivated: boolean;
          moonBagAmount: Big | null;
          closesPosition: boolean;
        },
  ): Promise<CloseResult | null> {
    const mode = p.tradingMode;
    const closing = opts.kind === "close" || opts.closesPosition;
    const reason: CloseReason = opts.kind === "close" ? opts.reason : "take_profit";
    const ctx = {
      agentId: p.agentId,
      positionId: p.id,
      tokenAddress: p.tokenAddress,
      ...(opts.kind === "close" ? { reason } : { takeProfitLevel: opts.levelsHit }),
    };
    const h = { sqlite: this.d.sqlite };
    try {
      const remaining = new Big(p.remainingAmount);
      const amount = opts.kind === "close" ? remaining : opts.amount;
      const held = readBalance(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress });
      if (held.lt(amount)) throw new InsufficientBalanceError(p.tokenAddress, amount, held);
      if (opts.kind === "close" && opts.signalId !== undefined && this.hasTradeKey(p.agentId, opts.signalId, "SELL"))
        throw new TradeSkipped("exit already done");
      const config = resolveStoredConfig(p.configOverrides);
      const solUsd = await this.solUsd();
      let fill: SwapFill;
      if (amount.gt(0)) {
        fill = await this.executorFor(mode).swap({
          agentId: p.agentId,
          walletAddress: p.walletAddress,
          side: "SELL",
          tokenMint: p.tokenAddress,
          tokenDecimals: p.tokenDecimals,
          amountAtomic: toAtomic(amount, p.tokenDecimals),
          slippageBps: resolveSlippageBps(null, config.slippage),
          maxBps: config.slippage.maxBps,
        });
        if (mode === "live" && this.d.live) return this.d.live.afterSellSwap(p, opts, fill, solUsd);
      } else {
        // Nothing left to sell (take-profit sold it all): the close records the outcome only.
        fill = {
          inputAtomic: 0n,
          outputAtomic: 0n,
          feesSol: new Big(0),
          routes: [],
          priceImpactPct: "0",
          slippageBps: 0,
          txHash: "",
          status: "confirmed",
        };
      }
      const { sold, proceeds, salePriceSol } = saleAmounts(p, fill);
      const net = proceeds.minus(fill.feesSol);
      const now = this.nowIso();
      const txId = crypto.randomUUID();
      const swapId = crypto.randomUUID();
      let result: CloseResult | null = null;
      let realizedAfter = new Big(p.realizedProfitSol);
      const remainingAfter = remaining.minus(sold);

      inTransaction(h, () => {
        const fresh = this.d.positions.byId(p.id);
        if (fresh?.status !== "open" || fresh.remainingAmount !== p.remainingAmount)
          throw new TradeSkipped("position changed");
        if (opts.kind === "close" && opts.signalId !== undefined)
          this.writeTradeKey(p.agentId, opts.signalId, "SELL", txId, now);
        const key = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress };
        const solKey = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT };
        if (sold.gt(0)) {
          debit(h, key, sold, { now });
          if (net.gte(0)) credit(h, solKey, net, { now });
          else debit(h, solKey, net.abs(), { now });
          insertTransaction(this.d.sqlite, {
            ...sellSides({
              tokenMint: p.tokenAddress,
              tokenSymbol: p.tokenSymbol,
              sol: proceeds,
              tokens: sold,
              tokenPriceUsd: salePriceSol.times(solUsd),
              solUsd,
              valueUsd: proceeds.times(solUsd),
            }),
            id: txId,
            agentId: p.agentId,
            walletAddress: p.walletAddress,
            now,
            signalId: opts.kind === "close" && opts.signalId !== undefined ? opts.signalId : p.signalId,
            fill,
            isDca: false,
            isTakeProfit: opts.kind === "take_profit",
            mode,
            status: fill.status,
            positionId: p.id,
          });
        }
        const booked = recordSaleOnPosition(
          this.d.sqlite,
          p,
          opts,
          {
            sold,
            proceeds,
            feesSol: fill.feesSol,
            salePriceSol,
            remainingAfter,
            saleTransactionId: sold.gt(0) ? txId : null,
            historicalSwapId: swapId,
            transactionHash: fill.txHash,
          },
          solUsd,
          now,
        );
        realizedAfter = booked.realizedProfitSol;
        result = booked.closed;
        this.snapshot(p.agentId, p.walletAddress, solUsd, now);
      });

      this.log.info("trade executed", {
        ...ctx,
        side: "sell",
        mode,
        transactionId: txId,
        tokens: decStr(sold),
        proceedsSol: decStr(proceeds),
        hash: fill.txHash,
        closed: closing,
      });
      if (sold.gt(0)) {
        this.d.metrics.trades.inc({ mode, side: "sell", outcome: "success" });
        this.d.events.publish("trade.executed", p.userId, {
          ...ctx,
          side: "sell",
          mode,
          transactionId: txId,
          isTakeProfit: opts.kind === "take_profit",
          tokens: decStr(sold),
          proceedsSol: decStr(proceeds),
          hash: fill.txHash,
        });
      }
      if (closing && result) {
        const r = result as CloseResult;
        this.d.events.publish("position.closed", p.userId, {
          positionId: p.id,
          agentId: p.agentId,
          tokenAddress: p.tokenAddress,
          reason,
          historicalSwapId: r.historicalSwapId,
          profitLossSol: r.profitLossSol,
          profitLossUsd: r.profitLossUsd,
        });
      } else {
        this.d.events.publish("position.updated", p.userId, {
          positionId: p.id,
          agentId: p.agentId,
          change: "take_profit",
          levelsHit: opts.kind === "take_profit" ? opts.levelsHit : p.levelsHit,
          remainingAmount: decStr(remainingAfter),
          realizedProfitSol: decStr(realizedAfter),
        });
      }
      return result;
    } catch (err) {
      if (err instanceof TradeSkipped || err instanceof LiveTradePendingError) throw err;
      this.tradeFailed(ctx, p.userId, "sell", mode, err);
      throw err;
    }
  }

  /**
   * Closes an open position: manual close endpoint, stop-loss, stale trade, exit signal. Takes the
   * position's lock, re-reads it, and answers 404 when it is no longer open (someone else sold).
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
      if (p?.status !== "open") throw new NotFoundError("Position not found");
      try {
        const r = await this.sell(p, { kind: "close", reason, signalId: opts.signalId });
        if (!r) throw new TradingError("Close produced no result");
        return r;
      } catch (err) {
        if (err instanceof TradeSkipped) throw new NotFoundError("Position not found");
        if (err instanceof AppError) throw err;
        throw new ExternalServiceError("trading", err instanceof Error ? err.message : String(err));
      }
    });
  }
}
