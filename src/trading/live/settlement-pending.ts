import { type Clock, isoNow } from "../../clock.ts";
import { inTransaction } from "../../db/client.ts";
import { SignalEvaluationRepository } from "../../db/repositories/signal-evaluations.ts";
import { newRowId } from "../../db/row-id.ts";
import type { Logger } from "../../logger.ts";
import { type Big, fromAtomic } from "../../money.ts";
import type { LiveIntent } from "../executor.ts";
import { lamportsToSol, safeDiv, swapSides } from "../settlement/amounts.ts";
import type { TradeBook } from "../settlement/bookkeeping.ts";
import type { TradeReporter } from "../settlement/post-commit.ts";
import type { LiveSwapFill } from "./fill.ts";
import type { LiveTrade, LiveTradeJournal } from "./journal.ts";

// Live trades whose outcome is not known (PRODUCT.md §5). A swap sent but
// not confirmed in time becomes a PENDING agent_transactions row with the trade key written (that
// signal never trades again for the agent) and no position or balance change; the journal keeps
// its intent. The reconciler later settles it (live.ts settleReconciled) or fails it here.

/** The swap a pending trade stands for, as the agent_transactions record shows it. */
export interface PendingSwap {
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  decimals: number;
  side: "BUY" | "SELL";
  positionId: string | null;
  /** The signal whose trade key the swap takes (a signal buy, an exit signal); null otherwise. */
  signalKey: number | null;
  signalId: number | null;
  isDca: boolean;
  isTakeProfit: boolean;
}

export interface PendingDeps {
  book: TradeBook;
  clock: Clock;
  journal: LiveTradeJournal;
  reporter: TradeReporter;
  log: Logger;
  /** Writes a trade key the chain already used (logs when it was taken). */
  writeTradeKey(agentId: string, signalId: number, action: string, transactionId: string, now: string): void;
  userOf(agentId: string): string | null;
}

export class PendingLiveTrades {
  private readonly evaluations: SignalEvaluationRepository;

  constructor(private readonly d: PendingDeps) {
    this.evaluations = new SignalEvaluationRepository(d.book.db.sqlite);
  }

  record(f: LiveSwapFill, intent: LiveIntent, solUsd: Big, t: PendingSwap): void {
    const sig = f.live.signature;
    const now = isoNow(this.d.clock);
    const txId = newRowId();
    const buy = t.side === "BUY";
    const sol = lamportsToSol(buy ? f.inputAtomic : f.outputAtomic);
    const tokens = fromAtomic(buy ? f.outputAtomic : f.inputAtomic, t.decimals);
    const tokenPriceUsd = safeDiv(sol, tokens).times(solUsd);
    inTransaction(this.d.book.db, () => {
      // Written now: whatever the chain says later, this (agent, signal, action) never trades again.
      if (t.signalKey !== null) this.d.writeTradeKey(t.agentId, t.signalKey, t.side, txId, now);
      this.d.book.insertTransaction({
        ...swapSides(buy, {
          tokenMint: t.tokenAddress,
          tokenSymbol: t.tokenSymbol,
          sol,
          tokens,
          tokenPriceUsd,
          solUsd,
          valueUsd: (buy ? sol.plus(f.feesSol) : sol).times(solUsd),
        }),
        id: txId,
        agentId: t.agentId,
        walletAddress: t.walletAddress,
        now,
        signalId: t.signalId,
        fill: f,
        isDca: t.isDca,
        isTakeProfit: t.isTakeProfit,
        mode: "live",
        status: "pending",
        positionId: t.positionId || null,
      });
      this.d.journal.markPending(sig, intent, txId);
    });
    this.d.journal.inFlight.delete(sig);
    this.d.log.warn("live trade pending: sent, not confirmed yet; it will be reconciled by signature", {
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
  fail(row: LiveTrade, status: "failed" | "expired", reason: string): void {
    const now = isoNow(this.d.clock);
    inTransaction(this.d.book.db, () => {
      this.d.journal.resolve(row.signature, status, { error: reason });
      if (row.transactionId) this.d.book.records.markFailed(row.transactionId, now);
      if (row.intent?.kind === "open") this.evaluations.markFailed(row.intent.signalId, row.agentId, `live: ${reason}`);
    });
    const side = row.side === "BUY" ? "buy" : "sell";
    const ctx = {
      agentId: row.agentId,
      signalId: row.intent?.kind === "open" ? row.intent.signalId : undefined,
      tokenAddress: row.tokenAddress,
      signature: row.signature,
      transactionId: row.transactionId,
    };
    this.d.reporter.failed(ctx, this.d.userOf(row.agentId), side, "live", reason, this.d.log);
  }

  /** A pending live buy the chain confirmed: its evaluation becomes "traded". */
  markTraded(signalId: number, agentId: string): void {
    this.evaluations.markTraded(signalId, agentId);
  }
}
