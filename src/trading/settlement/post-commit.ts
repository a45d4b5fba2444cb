import { AppError, isStorageError, publicErrorMessage } from "../../errors.ts";
import type { EventBus, TradeFailedEvent } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import { decStr } from "../../money.ts";
import { type DcaSettled, type OpenSettled, type SaleSettled, type Settled, saleContext, saleReason } from "./types.ts";

// The ONE step after a trade committed, for both settlements and the reconciler: the
// "trade executed" log line, the trades metric and the events (trade.executed, then
// position.opened / position.updated / position.closed). A failed trade has its own: log,
// metric, trade.failed. Nothing here writes the database: the trade is already recorded.

export interface PostCommitDeps {
  logger: Logger;
  metrics: Metrics;
  events: EventBus;
}

const optional = <T extends object>(cond: boolean, v: T): T | Record<never, never> => (cond ? v : {});

export class TradeReporter {
  constructor(private readonly d: PostCommitDeps) {}

  settled(t: Settled, log: Logger): void {
    if (t.kind === "open") this.open(t, log);
    else if (t.kind === "dca") this.dca(t, log);
    else this.sale(t, log);
  }

  /** A trade that did not happen: nothing changed (or a pending live swap the chain refused). */
  failed(
    ctx: Omit<TradeFailedEvent, "reason" | "side" | "mode">,
    userId: string | null,
    side: "buy" | "sell",
    mode: "simulation" | "live",
    err: unknown,
    log: Logger,
  ): void {
    const reason = publicErrorMessage(err);
    log.warn("trade failed", {
      ...ctx,
      side,
      mode,
      reason,
      // The log (operator only) keeps a storage error's own text; events and responses never do.
      ...(isStorageError(err) ? { storageError: (err as Error).message } : {}),
      ...(err instanceof AppError && err.details ? { details: err.details } : {}),
    });
    this.d.metrics.trades.inc({ mode, side, outcome: "failed" });
    if (userId) this.d.events.publish("trade.failed", userId, { ...ctx, side, mode, reason });
  }

  private open(t: OpenSettled, log: Logger): void {
    const ctx = { agentId: t.agentId, signalId: t.signalId, tokenAddress: t.tokenAddress };
    const hash = t.hash ?? "";
    log.info("trade executed", {
      ...ctx,
      side: "buy",
      mode: t.mode,
      positionId: t.positionId,
      transactionId: t.transactionId,
      solSpent: decStr(t.cost),
      tokens: decStr(t.tokens),
      hash,
      ...optional(t.reconciled !== undefined, { reconciled: t.reconciled }),
    });
    this.d.metrics.trades.inc({ mode: t.mode, side: "buy", outcome: "success" });
    this.d.events.publish("trade.executed", t.userId, {
      ...ctx,
      side: "buy",
      mode: t.mode,
      transactionId: t.transactionId,
      positionId: t.positionId,
      amountSol: decStr(t.cost),
      tokens: decStr(t.tokens),
      hash,
    });
    if (t.positionId)
      this.d.events.publish("position.opened", t.userId, {
        positionId: t.positionId,
        agentId: t.agentId,
        tokenAddress: t.tokenAddress,
        tokenSymbol: t.symbol,
        amount: decStr(t.tokens),
        entryPriceSol: decStr(t.entrySol),
        signalId: t.signalId,
      });
  }

  private dca(t: DcaSettled, log: Logger): void {
    const ctx = { agentId: t.agentId, positionId: t.positionId, tokenAddress: t.tokenAddress, dcaOrder: t.order };
    const hash = optional(t.hash !== null, { hash: t.hash as string });
    log.info("trade executed", {
      ...ctx,
      side: "buy",
      mode: t.mode,
      transactionId: t.transactionId,
      isDca: true,
      solSpent: decStr(t.cost),
      tokens: decStr(t.tokens),
      ...hash,
      ...optional(t.reconciled !== undefined, { reconciled: t.reconciled }),
    });
    this.d.metrics.trades.inc({ mode: t.mode, side: "buy", outcome: "success" });
    this.d.events.publish("trade.executed", t.userId, {
      ...ctx,
      side: "buy",
      mode: t.mode,
      transactionId: t.transactionId,
      isDca: true,
      amountSol: decStr(t.cost),
      tokens: decStr(t.tokens),
      ...hash,
    });
    if (t.next)
      this.d.events.publish("position.updated", t.userId, {
        positionId: t.positionId,
        agentId: t.agentId,
        change: "dca",
        dcaOrders: t.next.dcaOrders,
        entryPriceSol: decStr(t.next.entryPriceSol),
        remainingAmount: decStr(t.next.remainingAmount),
      });
  }

  private sale(t: SaleSettled, log: Logger): void {
    const s = t.sale;
    const ctx = {
      agentId: t.agentId,
      positionId: t.positionId,
      tokenAddress: t.tokenAddress,
      ...saleContext(s),
    };
    const hash = t.hash ?? "";
    log.info("trade executed", {
      ...ctx,
      side: "sell",
      mode: t.mode,
      transactionId: t.transactionId,
      tokens: decStr(t.sold),
      proceedsSol: decStr(t.proceeds),
      hash,
      closed: t.closing,
      ...optional(t.reconciled !== undefined, { reconciled: t.reconciled }),
    });
    if (t.traded) {
      this.d.metrics.trades.inc({ mode: t.mode, side: "sell", outcome: "success" });
      this.d.events.publish("trade.executed", t.userId, {
        ...ctx,
        side: "sell",
        mode: t.mode,
        transactionId: t.transactionId,
        isTakeProfit: s.kind === "take_profit",
        tokens: decStr(t.sold),
        proceedsSol: decStr(t.proceeds),
        hash,
      });
    }
    if (t.closing && t.closed) {
      this.d.events.publish("position.closed", t.userId, {
        positionId: t.positionId,
        agentId: t.agentId,
        tokenAddress: t.tokenAddress,
        reason: saleReason(s),
        historicalSwapId: t.closed.historicalSwapId,
        profitLossSol: t.closed.profitLossSol,
        profitLossUsd: t.closed.profitLossUsd,
      });
    } else if (t.positionWasOpen && s.kind === "manual_sale") {
      this.d.events.publish("position.updated", t.userId, {
        positionId: t.positionId,
        agentId: t.agentId,
        change: "manual_sale",
        percent: Number(s.percent),
        remainingAmount: decStr(t.remainingAfter),
        realizedProfitSol: decStr(t.realizedAfter),
      });
    } else if (t.positionWasOpen) {
      this.d.events.publish("position.updated", t.userId, {
        positionId: t.positionId,
        agentId: t.agentId,
        change: "take_profit",
        levelsHit: s.kind === "take_profit" ? s.levelsHit : t.levelsHitBefore,
        remainingAmount: decStr(t.remainingAfter),
        realizedProfitSol: decStr(t.realizedAfter),
      });
    }
  }
}
