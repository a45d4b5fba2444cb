import type { Database } from "bun:sqlite";
import { resolveStoredConfig, type TradingConfig } from "../agents/trading-config.ts";
import type { Clock } from "../clock.ts";
import { inTransaction } from "../db/client.ts";
import { AppError, ExternalServiceError, NotFoundError, TradingError } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import { credit, debit, InsufficientBalanceError, readBalance } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import type { Logger } from "../logger.ts";
import type { Market } from "../market/types.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { Big, decNum, decStr, fromAtomic, SOL_DECIMALS, SOL_MINT, toAtomic } from "../money.ts";
import type { SwapFill, TradeExecutor } from "./executor.ts";
import { LiveTradePendingError, type LiveSettlement } from "./live-settlement.ts";
import type { PositionLocks } from "./position-locks.ts";
import type { PositionRecord, PositionStore } from "./position-store.ts";
import { applyDcaFill } from "./rules/dca.ts";
import { closePnl, takeProfitSalePnl } from "./rules/pnl.ts";
import { resolveSlippageBps } from "./rules/slippage.ts";
import type { CloseReason, TradingMode } from "./rules/types.ts";

// The trading engine's execution path (issue: trading engine; PRODUCT.md §4). Every trade —
// signal buy, DCA buy, take-profit sale, close — goes the same way:
//   1. decide and size (pure rules, done by the caller),
//   2. the executor swaps (network I/O, outside any transaction),
//   3. ONE synchronous SQLite transaction settles everything: ledger debit and credit, the
//      transaction record, the position, the idempotency key, the balance snapshot.
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

export interface CloseResult {
  success: true;
  transactionId: string;
  historicalSwapId: string;
  profitLossSol: number;
  profitLossUsd: number;
  changePercent: number;
  transactionHash: string;
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

const lamportsToSol = (l: bigint) => fromAtomic(l, SOL_DECIMALS);

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
    if (!ex) throw new TradingError(mode === "live" ? "Live trading is not available: no live executor is configured" : "Simulation trading is not available: the swap aggregator is not configured");
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

  private tradeFailed(ctx: Record<string, unknown>, userId: string, side: "buy" | "sell", mode: TradingMode, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.log.warn("trade failed", { ...ctx, side, mode, reason, ...(err instanceof AppError && err.details ? { details: err.details } : {}) });
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
        .query<{ n: number }, [string, number, string]>("SELECT count(*) AS n FROM trade_idempotency WHERE agent_id = ? AND signal_id = ? AND action = ?")
        .get(agentId, signalId, action)!.n > 0
    );
  }

  private writeTradeKey(agentId: string, signalId: number, action: string, transactionId: string, now: string): void {
    const res = this.d.sqlite
      .query("INSERT OR IGNORE INTO trade_idempotency (agent_id, signal_id, action, transaction_id, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(agentId, signalId, action, transactionId, now);
    // Another settle already recorded this (agent, signal, action): abort this transaction.
    if (res.changes === 0) throw new TradeSkipped(`signal ${signalId} already traded (${action}) by agent ${agentId}`);
  }

  /** Snapshot of an agent wallet's SOL balance and total value (after a trade, or hourly). */
  snapshot(agentId: string, walletAddress: string, solUsd: Big | null, now: string, reason: "trade" | "hourly" = "trade"): void {
    const sol = readBalance({ sqlite: this.d.sqlite }, { agentId, walletAddress, tokenAddress: SOL_MINT });
    // Open positions valued at their last known price (entry price until the monitor priced them).
    const rows = this.d.sqlite
      .query<{ remaining: string; price: string }, [string, string]>(
        "SELECT remaining_amount AS remaining, COALESCE(last_price_sol, entry_price_sol) AS price FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'",
      )
      .all(agentId, walletAddress);
    let total = sol;
    for (const r of rows) total = total.plus(new Big(r.remaining).times(r.price));
    recordBalanceSnapshot(
      { sqlite: this.d.sqlite },
      { agentId, walletAddress, solBalance: decStr(sol), totalValueSol: decStr(total, 9), totalValueUsd: solUsd ? decStr(total.times(solUsd), 2) : null, reason, now },
    );
  }

  private insertTransaction(t: {
    id: string;
    agentId: string;
    walletAddress: string;
    type: "BUY" | "SELL";
    valueUsd: Big;
    now: string;
    tokenMint: string;
    signalId: number | null;
    fill: SwapFill;
    inputMint: string;
    inputSymbol: string;
    inputAmount: Big;
    inputPriceUsd: Big;
    outputMint: string;
    outputSymbol: string;
    outputAmount: Big;
    outputPriceUsd: Big;
    isDca: boolean;
    isTakeProfit: boolean;
    mode: TradingMode;
    positionId: string;
  }): void {
    this.d.sqlite
      .query(
        `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time,
           destination_address, signal_id, fees, routes, input_mint, input_symbol, input_amount, input_price, output_mint,
           output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit, trading_mode,
           transaction_hash, status, position_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.id,
        t.agentId,
        t.walletAddress,
        t.type,
        decStr(t.valueUsd, 2),
        t.now,
        t.tokenMint,
        t.signalId,
        decStr(t.fill.feesSol),
        JSON.stringify(t.fill.routes),
        t.inputMint,
        t.inputSymbol,
        decStr(t.inputAmount),
        decStr(t.inputPriceUsd, 12),
        t.outputMint,
        t.outputSymbol,
        decStr(t.outputAmount),
        decStr(t.outputPriceUsd, 12),
        String(t.fill.slippageBps),
        decStr(new Big(t.fill.priceImpactPct || "0").times(100), 6),
        t.isDca ? 1 : 0,
        t.isTakeProfit ? 1 : 0,
        t.mode,
        t.fill.txHash,
        t.fill.status,
        t.positionId,
        t.now,
        t.now,
      );
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
      const available = readBalance({ sqlite: this.d.sqlite }, { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: SOL_MINT });
      if (available.lt(req.sizeSol)) {
        throw new TradingError("Insufficient SOL balance", { required: decNum(req.sizeSol), available: decNum(available) });
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
        return this.d.live.afterOpenSwap({ agentId: agent.id, userId: agent.userId, walletAddress: req.walletAddress, signalId: signal.id, tokenAddress: signal.tokenAddress, symbol, decimals }, fill, solUsd);
      }
      const solSwapped = lamportsToSol(fill.inputAtomic);
      const tokens = fromAtomic(fill.outputAtomic, decimals);
      const entrySol = solSwapped.div(tokens);
      const entryUsd = entrySol.times(solUsd);
      const cost = solSwapped.plus(fill.feesSol);
      const symbol = signal.symbol || req.marketSymbol || signal.tokenAddress.slice(0, 6);
      const now = this.nowIso();
      const positionId = crypto.randomUUID();
      const txId = crypto.randomUUID();
      const h = { sqlite: this.d.sqlite };
      inTransaction(h, () => {
        this.writeTradeKey(agent.id, signal.id, "BUY", txId, now);
        debit(h, { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: SOL_MINT }, cost, { now });
        credit(h, { agentId: agent.id, walletAddress: req.walletAddress, tokenAddress: signal.tokenAddress }, tokens, { now, tokenSymbol: symbol, decimals });
        this.insertTransaction({
          id: txId,
          agentId: agent.id,
          walletAddress: req.walletAddress,
          type: "BUY",
          valueUsd: cost.times(solUsd),
          now,
          tokenMint: signal.tokenAddress,
          signalId: signal.id,
          fill,
          inputMint: SOL_MINT,
          inputSymbol: "SOL",
          inputAmount: solSwapped,
          inputPriceUsd: solUsd,
          outputMint: signal.tokenAddress,
          outputSymbol: symbol,
          outputAmount: tokens,
          outputPriceUsd: entryUsd,
          isDca: false,
          isTakeProfit: false,
          mode,
          positionId,
        });
        this.d.sqlite
          .query(
            `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, signal_id,
               status, entry_price_sol, entry_price_usd, purchase_amount, cost_sol, cost_usd, remaining_amount, peak_price_sol,
               last_price_sol, last_price_usd, purchase_transaction_id, purchase_transaction_hash, opened_at, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            positionId,
            agent.id,
            req.walletAddress,
            mode,
            signal.tokenAddress,
            symbol,
            decimals,
            signal.id,
            decStr(entrySol),
            decStr(entryUsd, 12),
            decStr(tokens),
            decStr(cost),
            decStr(cost.times(solUsd), 6),
            decStr(tokens),
            decStr(entrySol),
            decStr(entrySol),
            decStr(entryUsd, 12),
            txId,
            fill.txHash,
            now,
            now,
            now,
          );
        this.snapshot(agent.id, req.walletAddress, solUsd, now);
      });
      this.log.info("trade executed", { ...ctx, side: "buy", mode, positionId, transactionId: txId, solSpent: decStr(cost), tokens: decStr(tokens), hash: fill.txHash });
      this.d.metrics.trades.inc({ mode, side: "buy", outcome: "success" });
      const tradeData = { ...ctx, side: "buy", mode, transactionId: txId, positionId, amountSol: decStr(cost), tokens: decStr(tokens), hash: fill.txHash };
      this.d.events.publish("trade.executed", agent.userId, tradeData);
      this.d.events.publish("position.opened", agent.userId, { positionId, agentId: agent.id, tokenAddress: signal.tokenAddress, tokenSymbol: symbol, amount: decStr(tokens), entryPriceSol: decStr(entrySol), signalId: signal.id });
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
      const available = readBalance({ sqlite: this.d.sqlite }, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT });
      if (available.lt(amountSol)) throw new TradingError("Insufficient SOL balance", { required: decNum(amountSol), available: decNum(available) });
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
      const solSwapped = lamportsToSol(fill.inputAtomic);
      const tokens = fromAtomic(fill.outputAtomic, p.tokenDecimals);
      const next = applyDcaFill(
        { entryPriceSol: p.entryPriceSol, purchaseAmount: p.purchaseAmount, remainingAmount: p.remainingAmount, costSol: p.costSol, dcaOrders: p.dcaOrders },
        { solSwapped, feesSol: fill.feesSol, tokensReceived: tokens },
      );
      const cost = solSwapped.plus(fill.feesSol);
      const now = this.nowIso();
      const txId = crypto.randomUUID();
      const h = { sqlite: this.d.sqlite };
      inTransaction(h, () => {
        const fresh = this.d.positions.byId(p.id);
        if (!fresh || fresh.status !== "open" || fresh.dcaOrders !== p.dcaOrders) throw new TradeSkipped("position changed");
        debit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT }, cost, { now });
        credit(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress }, tokens, { now, tokenSymbol: p.tokenSymbol, decimals: p.tokenDecimals });
        this.insertTransaction({
          id: txId,
          agentId: p.agentId,
          walletAddress: p.walletAddress,
          type: "BUY",
          valueUsd: cost.times(solUsd),
          now,
          tokenMint: p.tokenAddress,
          signalId: p.signalId,
          fill,
          inputMint: SOL_MINT,
          inputSymbol: "SOL",
          inputAmount: solSwapped,
          inputPriceUsd: solUsd,
          outputMint: p.tokenAddress,
          outputSymbol: p.tokenSymbol,
          outputAmount: tokens,
          outputPriceUsd: solSwapped.div(tokens).times(solUsd),
          isDca: true,
          isTakeProfit: false,
          mode,
          positionId: p.id,
        });
        this.d.sqlite
          .query(
            `UPDATE positions SET entry_price_sol = ?, entry_price_usd = ?, purchase_amount = ?, remaining_amount = ?, cost_sol = ?,
               cost_usd = ?, dca_orders = ?, updated_at = ? WHERE id = ?`,
          )
          .run(
            decStr(next.entryPriceSol),
            decStr(next.entryPriceSol.times(solUsd), 12),
            decStr(next.purchaseAmount),
            decStr(next.remainingAmount),
            decStr(next.costSol),
            decStr(new Big(p.costUsd).plus(cost.times(solUsd)), 6),
            next.dcaOrders,
            now,
            p.id,
          );
        this.snapshot(p.agentId, p.walletAddress, solUsd, now);
      });
      this.log.info("trade executed", { ...ctx, side: "buy", mode, transactionId: txId, isDca: true, solSpent: decStr(cost), tokens: decStr(tokens) });
      this.d.metrics.trades.inc({ mode, side: "buy", outcome: "success" });
      this.d.events.publish("trade.executed", p.userId, { ...ctx, side: "buy", mode, transactionId: txId, isDca: true, amountSol: decStr(cost), tokens: decStr(tokens) });
      this.d.events.publish("position.updated", p.userId, { positionId: p.id, agentId: p.agentId, change: "dca", dcaOrders: next.dcaOrders, entryPriceSol: decStr(next.entryPriceSol), remainingAmount: decStr(next.remainingAmount) });
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
      | { kind: "take_profit"; amount: Big; levelsHit: number; moonBagActivated: boolean; moonBagAmount: Big | null; closesPosition: boolean },
  ): Promise<CloseResult | null> {
    const mode = p.tradingMode;
    const closing = opts.kind === "close" || opts.closesPosition;
    const reason: CloseReason = opts.kind === "close" ? opts.reason : "take_profit";
    const ctx = { agentId: p.agentId, positionId: p.id, tokenAddress: p.tokenAddress, ...(opts.kind === "close" ? { reason } : { takeProfitLevel: opts.levelsHit }) };
    const h = { sqlite: this.d.sqlite };
    try {
      const remaining = new Big(p.remainingAmount);
      const amount = opts.kind === "close" ? remaining : opts.amount;
      const held = readBalance(h, { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress });
      if (held.lt(amount)) throw new InsufficientBalanceError(p.tokenAddress, amount, held);
      if (opts.kind === "close" && opts.signalId !== undefined && this.hasTradeKey(p.agentId, opts.signalId, "SELL")) throw new TradeSkipped("exit already done");
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
        fill = { inputAtomic: 0n, outputAtomic: 0n, feesSol: new Big(0), routes: [], priceImpactPct: "0", slippageBps: 0, txHash: "", status: "confirmed" };
      }
      const sold = fromAtomic(fill.inputAtomic, p.tokenDecimals);
      const proceeds = lamportsToSol(fill.outputAtomic);
      const salePriceSol = sold.gt(0) ? proceeds.div(sold) : new Big(p.lastPriceSol ?? p.entryPriceSol);
      const net = proceeds.minus(fill.feesSol);
      const now = this.nowIso();
      const txId = crypto.randomUUID();
      const swapId = crypto.randomUUID();
      let result: CloseResult | null = null;
      let realizedAfter = new Big(p.realizedProfitSol);
      let remainingAfter = remaining.minus(sold);

      inTransaction(h, () => {
        const fresh = this.d.positions.byId(p.id);
        if (!fresh || fresh.status !== "open" || fresh.remainingAmount !== p.remainingAmount) throw new TradeSkipped("position changed");
        if (opts.kind === "close" && opts.signalId !== undefined) this.writeTradeKey(p.agentId, opts.signalId, "SELL", txId, now);
        const key = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: p.tokenAddress };
        const solKey = { agentId: p.agentId, walletAddress: p.walletAddress, tokenAddress: SOL_MINT };
        if (sold.gt(0)) {
          debit(h, key, sold, { now });
          if (net.gte(0)) credit(h, solKey, net, { now });
          else debit(h, solKey, net.abs(), { now });
          this.insertTransaction({
            id: txId,
            agentId: p.agentId,
            walletAddress: p.walletAddress,
            type: "SELL",
            valueUsd: proceeds.times(solUsd),
            now,
            tokenMint: p.tokenAddress,
            signalId: opts.kind === "close" && opts.signalId !== undefined ? opts.signalId : p.signalId,
            fill,
            inputMint: p.tokenAddress,
            inputSymbol: p.tokenSymbol,
            inputAmount: sold,
            inputPriceUsd: salePriceSol.times(solUsd),
            outputMint: SOL_MINT,
            outputSymbol: "SOL",
            outputAmount: proceeds,
            outputPriceUsd: solUsd,
            isDca: false,
            isTakeProfit: opts.kind === "take_profit",
            mode,
            positionId: p.id,
          });
        }
        if (opts.kind === "take_profit") {
          const tp = takeProfitSalePnl({ costSol: p.costSol, purchaseAmount: p.purchaseAmount, tokensSold: sold, proceedsSol: proceeds, feesSol: fill.feesSol });
          realizedAfter = realizedAfter.plus(tp.realizedProfitSol);
          this.d.sqlite
            .query(
              `UPDATE positions SET remaining_amount = ?, levels_hit = ?, realized_profit_sol = ?, realized_profit_usd = ?,
                 moon_bag_activated = ?, moon_bag_amount = ?, updated_at = ? WHERE id = ?`,
            )
            .run(
              decStr(remainingAfter),
              opts.levelsHit,
              decStr(realizedAfter),
              decStr(new Big(p.realizedProfitUsd).plus(tp.realizedProfitSol.times(solUsd)), 6),
              opts.moonBagActivated ? 1 : 0,
              opts.moonBagAmount ? decStr(opts.moonBagAmount) : null,
              now,
              p.id,
            );
        }
        if (closing) {
          // For a take-profit sale that empties the position, its profit is already in realizedAfter
          // and the close adds nothing more from this sale.
          const finalSale = opts.kind === "close";
          const pnl = closePnl({
            costSol: p.costSol,
            purchaseAmount: p.purchaseAmount,
            remainingAmount: finalSale ? p.remainingAmount : "0",
            entryPriceSol: p.entryPriceSol,
            realizedProfitSol: realizedAfter,
            proceedsSol: finalSale ? proceeds : 0,
            feesSol: finalSale ? fill.feesSol : 0,
            solUsdPrice: solUsd,
          });
          this.d.sqlite
            .query("UPDATE positions SET status = 'closed', remaining_amount = ?, closed_at = ?, close_reason = ?, last_price_sol = ?, updated_at = ? WHERE id = ?")
            .run(decStr(remainingAfter), now, reason, decStr(salePriceSol), now, p.id);
          this.d.sqlite
            .query(
              `INSERT INTO historical_swaps (id, agent_id, wallet_address, token_address, token_symbol, amount, purchase_price, sale_price,
                 change_percent, profit_loss_usd, profit_loss_sol, purchase_time, sale_time, purchase_transaction_id, sale_transaction_id,
                 signal_id, close_reason, position_id, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            )
            .run(
              swapId,
              p.agentId,
              p.walletAddress,
              p.tokenAddress,
              p.tokenSymbol,
              decStr(p.purchaseAmount),
              decStr(p.entryPriceSol),
              decStr(salePriceSol),
              decStr(pnl.changePercent, 4),
              decStr(pnl.profitLossUsd, 6),
              decStr(pnl.profitLossSol),
              p.openedAt,
              now,
              p.purchaseTransactionId,
              sold.gt(0) ? txId : null,
              p.signalId === null ? null : String(p.signalId),
              reason,
              p.id,
              now,
              now,
            );
          result = {
            success: true,
            transactionId: sold.gt(0) ? txId : "",
            historicalSwapId: swapId,
            profitLossSol: decNum(pnl.profitLossSol),
            profitLossUsd: decNum(pnl.profitLossUsd),
            changePercent: decNum(pnl.changePercent),
            transactionHash: fill.txHash,
          };
        }
        this.snapshot(p.agentId, p.walletAddress, solUsd, now);
      });

      this.log.info("trade executed", { ...ctx, side: "sell", mode, transactionId: txId, tokens: decStr(sold), proceedsSol: decStr(proceeds), hash: fill.txHash, closed: closing });
      if (sold.gt(0)) {
        this.d.metrics.trades.inc({ mode, side: "sell", outcome: "success" });
        this.d.events.publish("trade.executed", p.userId, { ...ctx, side: "sell", mode, transactionId: txId, isTakeProfit: opts.kind === "take_profit", tokens: decStr(sold), proceedsSol: decStr(proceeds), hash: fill.txHash });
      }
      if (closing && result) {
        const r = result as CloseResult;
        this.d.events.publish("position.closed", p.userId, { positionId: p.id, agentId: p.agentId, tokenAddress: p.tokenAddress, reason, historicalSwapId: r.historicalSwapId, profitLossSol: r.profitLossSol, profitLossUsd: r.profitLossUsd });
      } else {
        this.d.events.publish("position.updated", p.userId, { positionId: p.id, agentId: p.agentId, change: "take_profit", levelsHit: opts.kind === "take_profit" ? opts.levelsHit : p.levelsHit, remainingAmount: decStr(remainingAfter), realizedProfitSol: decStr(realizedAfter) });
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
  async closePosition(positionId: string, reason: CloseReason, opts: { userId?: string; agentId?: string; signalId?: number } = {}): Promise<CloseResult> {
    return this.d.locks.withLock(positionId, async () => {
      const p = opts.userId ? this.d.positions.openOwned(opts.userId, positionId, opts.agentId) : this.d.positions.byId(positionId);
      if (!p || p.status !== "open") throw new NotFoundError("Position not found");
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
