import type { Database } from "bun:sqlite";
import type { Clock } from "../clock.ts";
import { inTransaction } from "../db/client.ts";
import { AppError, ErrorCode } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { ChainBalances, LandedTransaction } from "../market/solana-rpc.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { Big, decStr, fromAtomic } from "../money.ts";
import { mirrorChainBalances } from "../wallets/live-balances.ts";
import type { SwapFill } from "./executor.ts";
import { amountsFromChain, isLiveFill, type LiveSwapFill } from "./live-executor.ts";
import type { LiveIntent, LiveTradeJournal, LiveTradeRow } from "./live-journal.ts";
import type { PositionRecord, PositionStore } from "./position-store.ts";
import type { DcaFillResult } from "./rules/dca.ts";
import type { CloseReason } from "./rules/types.ts";
import {
  applyDcaToPosition,
  buyAmounts,
  buySides,
  type CloseResult,
  insertOpenPosition,
  insertTradeKey,
  insertTransaction,
  lamportsToSol,
  recordSaleOnPosition,
  recordWalletSnapshot,
  type SwapSides,
  saleAmounts,
  sellSides,
  type TransactionRow,
} from "./settlement-writes.ts";

// Recording live trades (issue: live trading). The engine hands every live fill here right after
// the swap (one line per trade path in trading-engine.ts), and the reconciler hands the trades it
// resolved by signature. Live differs from simulation in three ways, hence its own settlement:
//   - nothing is recorded until the chain confirmed it; amounts are the chain's (getTransaction);
//   - balances are MIRRORED from the chain (setBalance), never debited: a trade that happened on
//     chain must always be recordable, whatever the ledger thought;
//   - an unknown outcome becomes a PENDING transaction (agent_transactions.status 'pending', the
//     trade idempotency key written, no position or balance change) that the reconciler settles
//     or fails later; it is never sent again.
// The bookkeeping itself (transaction row, position rows, DCA averaging, take-profit and close
// P/L, historical swap) is the engine's: the same writes (settlement-writes.ts) and pure rules
// (src/trading/rules/).

/** A live sale or close whose outcome is not known yet (502: the chain has not answered). */
export class LiveTradePendingError extends AppError {
  constructor(readonly signature: string) {
    super(
      ErrorCode.EXTERNAL_SERVICE_ERROR,
      "The swap transaction was sent but is not confirmed yet; it will be reconciled from the chain",
      {
        service: "solanaRpc",
        signature,
        status: "pending",
      },
    );
  }
}

export interface LiveSettlementDeps {
  sqlite: Database;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  positions: PositionStore;
  journal: LiveTradeJournal;
}

export interface LiveOpenInput {
  agentId: string;
  userId: string;
  walletAddress: string;
  signalId: number;
  tokenAddress: string;
  symbol: string;
  decimals: number;
}

export type LiveSellOptions =
  | { kind: "close"; reason: CloseReason; signalId?: number }
  | {
      kind: "take_profit";
      amount?: Big;
      levelsHit: number;
      moonBagActivated: boolean;
      moonBagAmount: Big | null;
      closesPosition: boolean;
    };

type TxFields = Omit<TransactionRow, "id" | "now" | "mode">;

const safeDiv = (a: Big, b: Big) => (b.eq(0) ? new Big(0) : a.div(b));

export class LiveSettlement {
  private readonly log: Logger;

  constructor(private readonly d: LiveSettlementDeps) {
    this.log = d.logger.child({ component: "live" });
  }

  private nowIso(): string {
    return new Date(this.d.clock.now()).toISOString();
  }

  private liveFill(fill: SwapFill): LiveSwapFill {
    if (!isLiveFill(fill)) throw new Error("live settlement received a fill without chain data");
    return fill;
  }

  // --- hooks called by the engine right after a live swap ---------------------------------------

  /** Signal buy. Returns the new position id, or null while pending. */
  afterOpenSwap(input: LiveOpenInput, fill: SwapFill, solUsd: Big): string | null {
    const f = this.liveFill(fill);
    if (f.status === "pending") {
      this.recordPending(
        f,
        { kind: "open", userId: input.userId, signalId: input.signalId, symbol: input.symbol },
        solUsd,
        {
          agentId: input.agentId,
          walletAddress: input.walletAddress,
          tokenAddress: input.tokenAddress,
          tokenSymbol: input.symbol,
          decimals: input.decimals,
          side: "BUY",
          positionId: null,
          signalKey: input.signalId,
          signalId: input.signalId,
          isDca: false,
          isTakeProfit: false,
        },
      );
      return null;
    }
    return this.settleOpen(input, f, solUsd, null);
  }

  /** DCA order. Returns true when recorded (false while pending). */
  afterDcaSwap(p: PositionRecord, order: number, fill: SwapFill, solUsd: Big): boolean {
    const f = this.liveFill(fill);
    if (f.status === "pending") {
      this.recordPending(f, { kind: "dca", positionId: p.id, order }, solUsd, {
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        tokenAddress: p.tokenAddress,
        tokenSymbol: p.tokenSymbol,
        decimals: p.tokenDecimals,
        side: "BUY",
        positionId: p.id,
        signalKey: null,
        signalId: p.signalId,
        isDca: true,
        isTakeProfit: false,
      });
      return false;
    }
    this.settleDca(p.id, order, f, solUsd, null, p.userId);
    return true;
  }

  /** Take-profit sale or close. Throws LiveTradePendingError while pending. */
  afterSellSwap(p: PositionRecord, opts: LiveSellOptions, fill: SwapFill, solUsd: Big): CloseResult | null {
    const f = this.liveFill(fill);
    if (f.status === "pending") {
      const intent: LiveIntent =
        opts.kind === "close"
          ? {
              kind: "close",
              positionId: p.id,
              reason: opts.reason,
              ...(opts.signalId !== undefined ? { signalId: opts.signalId } : {}),
            }
          : {
              kind: "take_profit",
              positionId: p.id,
              levelsHit: opts.levelsHit,
              moonBagActivated: opts.moonBagActivated,
              moonBagAmount: opts.moonBagAmount ? decStr(opts.moonBagAmount) : null,
              closesPosition: opts.closesPosition,
            };
      this.recordPending(f, intent, solUsd, {
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        tokenAddress: p.tokenAddress,
        tokenSymbol: p.tokenSymbol,
        decimals: p.tokenDecimals,
        side: "SELL",
        positionId: p.id,
        signalKey: opts.kind === "close" && opts.signalId !== undefined ? opts.signalId : null,
        signalId: opts.kind === "close" && opts.signalId !== undefined ? opts.signalId : p.signalId,
        isDca: false,
        isTakeProfit: opts.kind === "take_profit",
      });
      throw new LiveTradePendingError(f.live.signature);
    }
    return this.settleSell(p.id, opts, f, solUsd, null, p.userId);
  }

  // --- pending ------------------------------------------------------------------------------

  private recordPending(
    f: LiveSwapFill,
    intent: LiveIntent,
    solUsd: Big,
    t: {
      agentId: string;
      walletAddress: string;
      tokenAddress: string;
      tokenSymbol: string;
      decimals: number;
      side: "BUY" | "SELL";
      positionId: string | null;
      signalKey: number | null;
      signalId: number | null;
      isDca: boolean;
      isTakeProfit: boolean;
    },
  ): void {
    const sig = f.live.signature;
    const now = this.nowIso();
    const txId = crypto.randomUUID();
    const buy = t.side === "BUY";
    const sol = lamportsToSol(buy ? f.inputAtomic : f.outputAtomic);
    const tokens = fromAtomic(buy ? f.outputAtomic : f.inputAtomic, t.decimals);
    const tokenPriceUsd = safeDiv(sol, tokens).times(solUsd);
    inTransaction({ sqlite: this.d.sqlite }, () => {
      // Written now: whatever the chain says later, this (agent, signal, action) never trades again.
      if (t.signalKey !== null) this.writeTradeKey(t.agentId, t.signalKey, t.side, txId, now);
      this.writeTransaction(txId, null, now, {
        ...swapSides(buy, {
          tokenMint: t.tokenAddress,
          tokenSymbol: t.tokenSymbol,
          sol,
          tokens,
          tokenPriceUsd,
          solUsd,
          valueUsd: (buy ? sol.plus(f.feesSol) : sol).times(solUsd),
        }),
        agentId: t.agentId,
        walletAddress: t.walletAddress,
        signalId: t.signalId,
        fill: f,
        isDca: t.isDca,
        isTakeProfit: t.isTakeProfit,
        positionId: t.positionId,
        status: "pending",
      });
      this.d.journal.markPending(sig, intent, txId);
    });
    this.d.journal.inFlight.delete(sig);
    this.log.warn("live trade pending: sent, not confirmed yet; it will be reconciled by signature", {
      agentId: t.agentId,
      signalId: t.signalId,
      positionId: t.positionId,
      tokenAddress: t.tokenAddress,
      side: t.side.toLowerCase(),
      intent: intent.kind,
      transactionId: txId,
      signature: sig,
    });
  }

  /** A pending (or orphaned) live swap the chain refused or never included: nothing else changes. */
  failPending(row: LiveTradeRow, status: "failed" | "expired", reason: string): void {
    const now = this.nowIso();
    inTransaction({ sqlite: this.d.sqlite }, () => {
      this.d.journal.resolve(row.signature, status, { error: reason });
      if (row.transactionId)
        this.d.sqlite
          .query("UPDATE agent_transactions SET status = 'failed', updated_at = ? WHERE id = ?")
          .run(now, row.transactionId);
      if (row.intent?.kind === "open") {
        this.d.sqlite
          .query("UPDATE signal_evaluations SET outcome = 'failed', reason = ? WHERE signal_id = ? AND agent_id = ?")
          .run(`live: ${reason}`, row.intent.signalId, row.agentId);
      }
    });
    const side = row.side === "BUY" ? "buy" : "sell";
    const ctx = {
      agentId: row.agentId,
      signalId: row.intent?.kind === "open" ? row.intent.signalId : undefined,
      tokenAddress: row.tokenAddress,
      signature: row.signature,
      transactionId: row.transactionId,
    };
    this.log.warn("trade failed", { ...ctx, side, mode: "live", reason });
    this.d.metrics.trades.inc({ mode: "live", side, outcome: "failed" });
    const userId = this.userOf(row.agentId);
    if (userId) this.d.events.publish("trade.failed", userId, { ...ctx, side, mode: "live", reason });
  }

  /** A pending swap the chain confirmed: settle it as its intent says, with the chain's amounts. */
  settleReconciled(row: LiveTradeRow, landed: LandedTransaction, balances: ChainBalances, solUsd: Big): void {
    const amounts = amountsFromChain(
      row.side,
      row.walletAddress,
      row.tokenAddress,
      landed,
      { inAmount: row.inputAtomic, outAmount: row.expectedOutputAtomic },
      this.log,
    );
    const f: LiveSwapFill = {
      inputAtomic: amounts.inputAtomic,
      outputAtomic: amounts.outputAtomic,
      feesSol: lamportsToSol(landed.feeLamports),
      routes: [],
      priceImpactPct: "0",
      slippageBps: 0,
      txHash: row.signature,
      status: "confirmed",
      live: { signature: row.signature, lastValidBlockHeight: row.lastValidBlockHeight, balancesAfter: balances },
    };
    const intent = row.intent;
    const userId = this.userOf(row.agentId);
    if (!intent || !userId) {
      this.settleOrphan(row, f, solUsd);
      return;
    }
    switch (intent.kind) {
      case "open":
        this.settleOpen(
          {
            agentId: row.agentId,
            userId,
            walletAddress: row.walletAddress,
            signalId: intent.signalId,
            tokenAddress: row.tokenAddress,
            symbol: intent.symbol,
            decimals: row.tokenDecimals,
          },
          f,
          solUsd,
          row.transactionId,
        );
        return;
      case "dca":
        this.settleDca(intent.positionId, intent.order, f, solUsd, row.transactionId, userId);
        return;
      case "take_profit":
        this.settleSell(
          intent.positionId,
          {
            kind: "take_profit",
            levelsHit: intent.levelsHit,
            moonBagActivated: intent.moonBagActivated,
            moonBagAmount: intent.moonBagAmount ? new Big(intent.moonBagAmount) : null,
            closesPosition: intent.closesPosition,
          },
          f,
          solUsd,
          row.transactionId,
          userId,
        );
        return;
      case "close":
        this.settleSell(
          intent.positionId,
          { kind: "close", reason: intent.reason, signalId: intent.signalId },
          f,
          solUsd,
          row.transactionId,
          userId,
        );
        return;
    }
  }

  // --- settlement ---------------------------------------------------------------------------

  private settleOpen(input: LiveOpenInput, f: LiveSwapFill, solUsd: Big, pendingTxId: string | null): string | null {
    const { solSwapped, tokens, cost } = buyAmounts(f, input.decimals);
    const entrySol = safeDiv(solSwapped, tokens);
    const entryUsd = entrySol.times(solUsd);
    const now = this.nowIso();
    const txId = pendingTxId ?? crypto.randomUUID();
    let positionId: string | null = crypto.randomUUID();
    const h = { sqlite: this.d.sqlite };
    inTransaction(h, () => {
      if (!pendingTxId) this.writeTradeKey(input.agentId, input.signalId, "BUY", txId, now);
      const existing = this.d.positions.openForAgentToken(input.agentId, input.tokenAddress);
      // Never abort a trade the chain already made: without room for a position it is still recorded.
      if (existing) positionId = null;
      this.writeTransaction(txId, pendingTxId, now, {
        ...buySides({
          tokenMint: input.tokenAddress,
          tokenSymbol: input.symbol,
          sol: solSwapped,
          tokens,
          tokenPriceUsd: entryUsd,
          solUsd,
          valueUsd: cost.times(solUsd),
        }),
        agentId: input.agentId,
        walletAddress: input.walletAddress,
        signalId: input.signalId,
        fill: f,
        isDca: false,
        isTakeProfit: false,
        positionId: positionId ?? existing?.id ?? null,
        status: "confirmed",
      });
      if (positionId) {
        insertOpenPosition(this.d.sqlite, {
          id: positionId,
          agentId: input.agentId,
          walletAddress: input.walletAddress,
          mode: "live",
          tokenAddress: input.tokenAddress,
          tokenSymbol: input.symbol,
          tokenDecimals: input.decimals,
          signalId: input.signalId,
          entryPriceSol: entrySol,
          entryPriceUsd: entryUsd,
          tokens,
          cost,
          solUsd,
          transactionId: txId,
          transactionHash: f.live.signature,
          now,
        });
      }
      this.mirror(input.agentId, input.walletAddress, input.tokenAddress, input.symbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      if (pendingTxId)
        this.d.sqlite
          .query("UPDATE signal_evaluations SET outcome = 'traded', reason = NULL WHERE signal_id = ? AND agent_id = ?")
          .run(input.signalId, input.agentId);
      recordWalletSnapshot(this.d.sqlite, input.agentId, input.walletAddress, solUsd, now);
    });
    this.d.journal.inFlight.delete(f.live.signature);
    const ctx = { agentId: input.agentId, signalId: input.signalId, tokenAddress: input.tokenAddress };
    if (!positionId)
      this.log.error(
        "live buy landed while the agent already holds an open position of the token; recorded and mirrored, no second position",
        { ...ctx, transactionId: txId, signature: f.live.signature },
      );
    this.log.info("trade executed", {
      ...ctx,
      side: "buy",
      mode: "live",
      positionId,
      transactionId: txId,
      solSpent: decStr(cost),
      tokens: decStr(tokens),
      hash: f.live.signature,
      reconciled: pendingTxId !== null,
    });
    this.d.metrics.trades.inc({ mode: "live", side: "buy", outcome: "success" });
    this.d.events.publish("trade.executed", input.userId, {
      ...ctx,
      side: "buy",
      mode: "live",
      transactionId: txId,
      positionId,
      amountSol: decStr(cost),
      tokens: decStr(tokens),
      hash: f.live.signature,
    });
    if (positionId) {
      this.d.events.publish("position.opened", input.userId, {
        positionId,
        agentId: input.agentId,
        tokenAddress: input.tokenAddress,
        tokenSymbol: input.symbol,
        amount: decStr(tokens),
        entryPriceSol: decStr(entrySol),
        signalId: input.signalId,
      });
    }
    return positionId;
  }

  private settleDca(
    positionId: string,
    order: number,
    f: LiveSwapFill,
    solUsd: Big,
    pendingTxId: string | null,
    userId: string,
  ): void {
    const now = this.nowIso();
    const txId = pendingTxId ?? crypto.randomUUID();
    const h = { sqlite: this.d.sqlite };
    let applied: DcaFillResult | null = null;
    let p: PositionRecord | null = null;
    let tokens = new Big(0);
    let cost = new Big(0);
    inTransaction(h, () => {
      p = this.d.positions.byId(positionId);
      if (!p) throw new Error(`position ${positionId} of a live DCA buy is gone`);
      const bought = buyAmounts(f, p.tokenDecimals);
      const solSwapped = bought.solSwapped;
      tokens = bought.tokens;
      cost = bought.cost;
      this.writeTransaction(txId, pendingTxId, now, {
        ...buySides({
          tokenMint: p.tokenAddress,
          tokenSymbol: p.tokenSymbol,
          sol: solSwapped,
          tokens,
          tokenPriceUsd: safeDiv(solSwapped, tokens).times(solUsd),
          solUsd,
          valueUsd: cost.times(solUsd),
        }),
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        signalId: p.signalId,
        fill: f,
        isDca: true,
        isTakeProfit: false,
        positionId: p.id,
        status: "confirmed",
      });
      if (p.status === "open")
        applied = applyDcaToPosition(this.d.sqlite, p, { solSwapped, feesSol: f.feesSol, tokens }, solUsd, now);
      this.mirror(p.agentId, p.walletAddress, p.tokenAddress, p.tokenSymbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      recordWalletSnapshot(this.d.sqlite, p.agentId, p.walletAddress, solUsd, now);
    });
    this.d.journal.inFlight.delete(f.live.signature);
    const pos = p as unknown as PositionRecord;
    const ctx = { agentId: pos.agentId, positionId, tokenAddress: pos.tokenAddress, dcaOrder: order };
    const a = applied as DcaFillResult | null;
    if (!a)
      this.log.error("live DCA buy landed after its position closed; recorded and mirrored", {
        ...ctx,
        transactionId: txId,
        signature: f.live.signature,
      });
    this.log.info("trade executed", {
      ...ctx,
      side: "buy",
      mode: "live",
      transactionId: txId,
      isDca: true,
      solSpent: decStr(cost),
      tokens: decStr(tokens),
      hash: f.live.signature,
      reconciled: pendingTxId !== null,
    });
    this.d.metrics.trades.inc({ mode: "live", side: "buy", outcome: "success" });
    this.d.events.publish("trade.executed", userId, {
      ...ctx,
      side: "buy",
      mode: "live",
      transactionId: txId,
      isDca: true,
      amountSol: decStr(cost),
      tokens: decStr(tokens),
      hash: f.live.signature,
    });
    if (a)
      this.d.events.publish("position.updated", userId, {
        positionId,
        agentId: pos.agentId,
        change: "dca",
        dcaOrders: a.dcaOrders,
        entryPriceSol: decStr(a.entryPriceSol),
        remainingAmount: decStr(a.remainingAmount),
      });
  }

  private settleSell(
    positionId: string,
    opts: LiveSellOptions,
    f: LiveSwapFill,
    solUsd: Big,
    pendingTxId: string | null,
    userId: string,
  ): CloseResult | null {
    const now = this.nowIso();
    const txId = pendingTxId ?? crypto.randomUUID();
    const swapId = crypto.randomUUID();
    const h = { sqlite: this.d.sqlite };
    let result: CloseResult | null = null;
    let p: PositionRecord | null = null;
    let sold = new Big(0);
    let proceeds = new Big(0);
    let closing = false;
    let reason: CloseReason = "take_profit";
    let remainingAfter = new Big(0);
    let realizedAfter = new Big(0);
    inTransaction(h, () => {
      p = this.d.positions.byId(positionId);
      if (!p) throw new Error(`position ${positionId} of a live sale is gone`);
      const remaining = new Big(p.remainingAmount);
      const sale = saleAmounts(p, f);
      sold = sale.sold;
      proceeds = sale.proceeds;
      const salePriceSol = sale.salePriceSol;
      remainingAfter = remaining.minus(sold);
      if (remainingAfter.lt(0)) remainingAfter = new Big(0);
      realizedAfter = new Big(p.realizedProfitSol);
      const open = p.status === "open";
      closing = open && (opts.kind === "close" || opts.closesPosition);
      reason = opts.kind === "close" ? opts.reason : "take_profit";
      if (opts.kind === "close" && opts.signalId !== undefined && !pendingTxId)
        this.writeTradeKey(p.agentId, opts.signalId, "SELL", txId, now);
      this.writeTransaction(txId, pendingTxId, now, {
        ...sellSides({
          tokenMint: p.tokenAddress,
          tokenSymbol: p.tokenSymbol,
          sol: proceeds,
          tokens: sold,
          tokenPriceUsd: salePriceSol.times(solUsd),
          solUsd,
          valueUsd: proceeds.times(solUsd),
        }),
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        signalId: opts.kind === "close" && opts.signalId !== undefined ? opts.signalId : p.signalId,
        fill: f,
        isDca: false,
        isTakeProfit: opts.kind === "take_profit",
        positionId: p.id,
        status: "confirmed",
      });
      // A sale that landed after its position closed changes no position (logged below).
      if (open) {
        const booked = recordSaleOnPosition(
          this.d.sqlite,
          p,
          opts,
          {
            sold,
            proceeds,
            feesSol: f.feesSol,
            salePriceSol,
            remainingAfter,
            saleTransactionId: txId,
            historicalSwapId: swapId,
            transactionHash: f.live.signature,
          },
          solUsd,
          now,
        );
        realizedAfter = booked.realizedProfitSol;
        result = booked.closed;
      }
      this.mirror(p.agentId, p.walletAddress, p.tokenAddress, p.tokenSymbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      recordWalletSnapshot(this.d.sqlite, p.agentId, p.walletAddress, solUsd, now);
    });
    this.d.journal.inFlight.delete(f.live.signature);
    const pos = p as unknown as PositionRecord;
    const ctx = {
      agentId: pos.agentId,
      positionId,
      tokenAddress: pos.tokenAddress,
      ...(opts.kind === "close" ? { reason } : { takeProfitLevel: opts.levelsHit }),
    };
    if (pos.status !== "open")
      this.log.error("live sale landed after its position closed; recorded and mirrored", {
        ...ctx,
        transactionId: txId,
        signature: f.live.signature,
      });
    this.log.info("trade executed", {
      ...ctx,
      side: "sell",
      mode: "live",
      transactionId: txId,
      tokens: decStr(sold),
      proceedsSol: decStr(proceeds),
      hash: f.live.signature,
      closed: closing,
      reconciled: pendingTxId !== null,
    });
    this.d.metrics.trades.inc({ mode: "live", side: "sell", outcome: "success" });
    this.d.events.publish("trade.executed", userId, {
      ...ctx,
      side: "sell",
      mode: "live",
      transactionId: txId,
      isTakeProfit: opts.kind === "take_profit",
      tokens: decStr(sold),
      proceedsSol: decStr(proceeds),
      hash: f.live.signature,
    });
    const r = result as CloseResult | null;
    if (closing && r) {
      this.d.events.publish("position.closed", userId, {
        positionId,
        agentId: pos.agentId,
        tokenAddress: pos.tokenAddress,
        reason,
        historicalSwapId: r.historicalSwapId,
        profitLossSol: r.profitLossSol,
        profitLossUsd: r.profitLossUsd,
      });
    } else if (pos.status === "open") {
      this.d.events.publish("position.updated", userId, {
        positionId,
        agentId: pos.agentId,
        change: "take_profit",
        levelsHit: opts.kind === "take_profit" ? opts.levelsHit : pos.levelsHit,
        remainingAmount: decStr(remainingAfter),
        realizedProfitSol: decStr(realizedAfter),
      });
    }
    return r;
  }

  /**
   * A swap that landed after the process lost track of it (stopped while confirming): its
   * purpose is unknown, so it is recorded as a transaction without touching positions, the
   * balances are mirrored, and an error asks for a review.
   */
  private settleOrphan(row: LiveTradeRow, f: LiveSwapFill, solUsd: Big): void {
    const now = this.nowIso();
    const txId = row.transactionId ?? crypto.randomUUID();
    const buy = row.side === "BUY";
    const sol = lamportsToSol(buy ? f.inputAtomic : f.outputAtomic);
    const tokens = fromAtomic(buy ? f.outputAtomic : f.inputAtomic, row.tokenDecimals);
    const symbol =
      this.d.positions.openForAgentToken(row.agentId, row.tokenAddress)?.tokenSymbol ?? row.tokenAddress.slice(0, 6);
    const tokenPriceUsd = safeDiv(sol, tokens).times(solUsd);
    inTransaction({ sqlite: this.d.sqlite }, () => {
      this.writeTransaction(txId, row.transactionId, now, {
        ...swapSides(buy, {
          tokenMint: row.tokenAddress,
          tokenSymbol: symbol,
          sol,
          tokens,
          tokenPriceUsd,
          solUsd,
          valueUsd: sol.times(solUsd),
        }),
        agentId: row.agentId,
        walletAddress: row.walletAddress,
        signalId: null,
        fill: f,
        isDca: false,
        isTakeProfit: false,
        positionId: null,
        status: "confirmed",
      });
      this.mirror(row.agentId, row.walletAddress, row.tokenAddress, symbol, f, now);
      this.d.journal.resolve(row.signature, "confirmed", { transactionId: txId });
    });
    this.log.error(
      "live swap landed after the service lost track of it (stopped while confirming); recorded without changing positions; review the agent's positions",
      {
        agentId: row.agentId,
        tokenAddress: row.tokenAddress,
        side: row.side.toLowerCase(),
        signature: row.signature,
        transactionId: txId,
      },
    );
  }

  // --- rows ---------------------------------------------------------------------------------

  private userOf(agentId: string): string | null {
    return (
      this.d.sqlite.query<{ u: string }, [string]>("SELECT user_id AS u FROM agents WHERE id = ?").get(agentId)?.u ??
      null
    );
  }

  private mirror(
    agentId: string,
    walletAddress: string,
    tokenAddress: string,
    symbol: string,
    f: LiveSwapFill,
    now: string,
  ): void {
    const chain = f.live.balancesAfter;
    if (!chain) return;
    mirrorChainBalances({ sqlite: this.d.sqlite }, { agentId, walletAddress }, chain, {
      now,
      mints: [tokenAddress],
      symbolOf: () => symbol,
    });
  }

  private writeTradeKey(agentId: string, signalId: number, action: string, transactionId: string, now: string): void {
    // The chain already traded: record it anyway, but say loudly that the key was taken.
    if (!insertTradeKey(this.d.sqlite, agentId, signalId, action, transactionId, now))
      this.log.error("live trade recorded although its signal was already traded by this agent", {
        agentId,
        signalId,
        action,
        transactionId,
      });
  }

  private writeTransaction(id: string, existingId: string | null, now: string, t: TxFields): void {
    if (existingId) {
      // The pending row becomes the confirmed one; its route, slippage and impact stay as sent.
      this.d.sqlite
        .query(
          `UPDATE agent_transactions SET transaction_value_usd = ?, fees = ?, input_amount = ?, input_price = ?, output_amount = ?,
             output_price = ?, status = ?, position_id = ?, updated_at = ? WHERE id = ?`,
        )
        .run(
          decStr(t.valueUsd, 2),
          decStr(t.fill.feesSol),
          decStr(t.inputAmount),
          decStr(t.inputPriceUsd, 12),
          decStr(t.outputAmount),
          decStr(t.outputPriceUsd, 12),
          t.status,
          t.positionId || null,
          now,
          existingId,
        );
      return;
    }
    insertTransaction(this.d.sqlite, { ...t, id, now, mode: "live", positionId: t.positionId || null });
  }
}

/** A buy's or a sale's two sides, by direction (pending and orphaned swaps are either). */
function swapSides(buy: boolean, a: Parameters<typeof buySides>[0]): SwapSides {
  return buy ? buySides(a) : sellSides(a);
}
