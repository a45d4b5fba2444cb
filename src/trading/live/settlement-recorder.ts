import { type Clock, isoNow } from "../../clock.ts";
import { inTransaction } from "../../db/client.ts";
import { SignalEvaluationRepository } from "../../db/repositories/signal-evaluations.ts";
import { newRowId } from "../../db/row-id.ts";
import type { Logger } from "../../logger.ts";
import { Big } from "../../money.ts";
import { mirrorChainBalances } from "../../wallets/live-balances.ts";
import type { SwapFill } from "../executor.ts";
import type { DcaFillResult } from "../rules/dca.ts";
import { buyAmounts, buySides, type SwapSides, safeDiv, saleAmounts, sellSides } from "../settlement/amounts.ts";
import type { TradeBook, TradeRecord } from "../settlement/bookkeeping.ts";
import {
  type CloseResult,
  type DcaSettled,
  type OpenSettled,
  type OpenTrade,
  type SaleRequest,
  type SaleSettled,
  saleCloses,
  saleContext,
  saleSignalId,
} from "../settlement/types.ts";
import type { LiveSwapFill } from "./fill.ts";
import type { LiveTradeJournal } from "./journal.ts";

// Recording a CONFIRMED live swap, right after the executor's confirmation
// or later by the reconciler (then `pendingTxId` names the pending row it confirms): the chain's
// amounts, balances mirrored from the chain, the journal row resolved, and the shared bookkeeping
// (bookkeeping.ts). A trade the chain already made is never refused: without room for a
// position, or after its position closed, it is still recorded, and an error says so.

export interface LiveRecorderDeps {
  book: TradeBook;
  clock: Clock;
  journal: LiveTradeJournal;
  logger: Logger;
}

export class LiveRecorder {
  private readonly evaluations: SignalEvaluationRepository;

  constructor(private readonly d: LiveRecorderDeps) {
    this.evaluations = new SignalEvaluationRepository(d.book.db.sqlite);
  }

  private get logger(): Logger {
    return this.d.logger;
  }

  settleOpen(t: OpenTrade, f: LiveSwapFill, solUsd: Big, pendingTxId: string | null): OpenSettled {
    const { solSwapped, tokens, cost } = buyAmounts(f, t.decimals);
    const entrySol = safeDiv(solSwapped, tokens);
    const entryUsd = entrySol.times(solUsd);
    const now = isoNow(this.d.clock);
    const txId = pendingTxId ?? newRowId();
    let positionId: string | null = newRowId();
    const book = this.d.book;
    inTransaction(book.db, () => {
      if (!pendingTxId) this.writeTradeKey(t.agentId, t.signalId, "BUY", txId, now);
      const existing = book.positions.openForAgentToken(t.agentId, t.tokenAddress);
      // Never abort a trade the chain already made: without room for a position it is still recorded.
      if (existing) positionId = null;
      const sides = buySides({
        tokenMint: t.tokenAddress,
        tokenSymbol: t.symbol,
        sol: solSwapped,
        tokens,
        tokenPriceUsd: entryUsd,
        solUsd,
        valueUsd: cost.times(solUsd),
      });
      this.writeTransaction(txId, pendingTxId, now, sides, {
        agentId: t.agentId,
        walletAddress: t.walletAddress,
        signalId: t.signalId,
        fill: f,
        isDca: false,
        isTakeProfit: false,
        positionId: positionId ?? existing?.id ?? null,
      });
      if (positionId) {
        book.openPosition({
          id: positionId,
          agentId: t.agentId,
          walletAddress: t.walletAddress,
          mode: "live",
          tokenAddress: t.tokenAddress,
          tokenSymbol: t.symbol,
          tokenDecimals: t.decimals,
          signalId: t.signalId,
          entryPriceSol: entrySol,
          entryPriceUsd: entryUsd,
          tokens,
          solSwapped,
          cost,
          solUsd,
          transactionId: txId,
          transactionHash: f.live.signature,
          now,
        });
      }
      this.mirror(t.agentId, t.walletAddress, t.tokenAddress, t.symbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      if (pendingTxId) this.evaluations.markTraded(t.signalId, t.agentId);
      book.snapshot(t.agentId, t.walletAddress, solUsd, now);
    });
    this.d.journal.inFlight.delete(f.live.signature);
    if (!positionId)
      this.logger.error(
        "live buy landed while the agent already holds an open position of the token; recorded and mirrored, no second position",
        {
          agentId: t.agentId,
          signalId: t.signalId,
          tokenAddress: t.tokenAddress,
          transactionId: txId,
          signature: f.live.signature,
        },
      );
    return {
      kind: "open",
      mode: "live",
      userId: t.userId,
      agentId: t.agentId,
      tokenAddress: t.tokenAddress,
      signalId: t.signalId,
      transactionId: txId,
      hash: f.live.signature,
      reconciled: pendingTxId !== null,
      positionId,
      symbol: t.symbol,
      cost,
      tokens,
      entrySol,
    };
  }

  settleDca(
    positionId: string,
    order: number,
    f: LiveSwapFill,
    solUsd: Big,
    pendingTxId: string | null,
    userId: string,
  ): DcaSettled {
    const now = isoNow(this.d.clock);
    const txId = pendingTxId ?? newRowId();
    const book = this.d.book;
    const { p, applied, tokens, cost } = inTransaction(book.db, () => {
      const p = book.positions.byId(positionId);
      if (!p) throw new Error(`position ${positionId} of a live DCA buy is gone`);
      const { solSwapped, tokens, cost } = buyAmounts(f, p.tokenDecimals);
      const sides = buySides({
        tokenMint: p.tokenAddress,
        tokenSymbol: p.tokenSymbol,
        sol: solSwapped,
        tokens,
        tokenPriceUsd: safeDiv(solSwapped, tokens).times(solUsd),
        solUsd,
        valueUsd: cost.times(solUsd),
      });
      this.writeTransaction(txId, pendingTxId, now, sides, {
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        signalId: p.signalId,
        fill: f,
        isDca: true,
        isTakeProfit: false,
        positionId: p.id,
      });
      const applied: DcaFillResult | null =
        p.status === "open" ? book.applyDca(p, { solSwapped, feesSol: f.feesSol, tokens }, solUsd, now) : null;
      this.mirror(p.agentId, p.walletAddress, p.tokenAddress, p.tokenSymbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      book.snapshot(p.agentId, p.walletAddress, solUsd, now);
      return { p, applied, tokens, cost };
    });
    this.d.journal.inFlight.delete(f.live.signature);
    if (!applied)
      this.logger.error("live DCA buy landed after its position closed; recorded and mirrored", {
        agentId: p.agentId,
        positionId,
        tokenAddress: p.tokenAddress,
        dcaOrder: order,
        transactionId: txId,
        signature: f.live.signature,
      });
    return {
      kind: "dca",
      mode: "live",
      userId,
      agentId: p.agentId,
      tokenAddress: p.tokenAddress,
      positionId,
      order,
      transactionId: txId,
      hash: f.live.signature,
      reconciled: pendingTxId !== null,
      cost,
      tokens,
      next: applied,
    };
  }

  settleSell(
    positionId: string,
    sale: SaleRequest,
    f: LiveSwapFill,
    solUsd: Big,
    pendingTxId: string | null,
    userId: string,
  ): SaleSettled {
    const now = isoNow(this.d.clock);
    const txId = pendingTxId ?? newRowId();
    const swapId = newRowId();
    const book = this.d.book;
    const exitSignal = saleSignalId(sale);
    const r = inTransaction(book.db, () => {
      const p = book.positions.byId(positionId);
      if (!p) throw new Error(`position ${positionId} of a live sale is gone`);
      const { sold, proceeds, salePriceSol } = saleAmounts(p, f);
      let remainingAfter = new Big(p.remainingAmount).minus(sold);
      if (remainingAfter.lt(0)) remainingAfter = new Big(0);
      const open = p.status === "open";
      if (exitSignal !== undefined && !pendingTxId) this.writeTradeKey(p.agentId, exitSignal, "SELL", txId, now);
      const sides = sellSides({
        tokenMint: p.tokenAddress,
        tokenSymbol: p.tokenSymbol,
        sol: proceeds,
        tokens: sold,
        tokenPriceUsd: salePriceSol.times(solUsd),
        solUsd,
        valueUsd: proceeds.times(solUsd),
      });
      this.writeTransaction(txId, pendingTxId, now, sides, {
        agentId: p.agentId,
        walletAddress: p.walletAddress,
        signalId: exitSignal ?? p.signalId,
        fill: f,
        isDca: false,
        isTakeProfit: sale.kind === "take_profit",
        positionId: p.id,
      });
      // A sale that landed after its position closed changes no position (logged below).
      let booked: { realizedProfitSol: Big; closed: CloseResult | null } = {
        realizedProfitSol: new Big(p.realizedProfitSol),
        closed: null,
      };
      if (open)
        booked = book.recordSale(
          p,
          sale,
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
      this.mirror(p.agentId, p.walletAddress, p.tokenAddress, p.tokenSymbol, f, now);
      this.d.journal.resolve(f.live.signature, "confirmed", { transactionId: txId });
      book.snapshot(p.agentId, p.walletAddress, solUsd, now);
      return { p, sold, proceeds, remainingAfter, open, booked };
    });
    this.d.journal.inFlight.delete(f.live.signature);
    const { p } = r;
    if (!r.open)
      this.logger.error("live sale landed after its position closed; recorded and mirrored", {
        agentId: p.agentId,
        positionId,
        tokenAddress: p.tokenAddress,
        ...saleContext(sale),
        transactionId: txId,
        signature: f.live.signature,
      });
    return {
      kind: "sale",
      mode: "live",
      userId,
      agentId: p.agentId,
      tokenAddress: p.tokenAddress,
      positionId,
      transactionId: txId,
      hash: f.live.signature,
      reconciled: pendingTxId !== null,
      sale,
      sold: r.sold,
      proceeds: r.proceeds,
      traded: true,
      positionWasOpen: r.open,
      closing: r.open && saleCloses(sale),
      closed: r.booked.closed,
      levelsHitBefore: p.levelsHit,
      remainingAfter: r.remainingAfter,
      realizedAfter: r.booked.realizedProfitSol,
    };
  }

  // --- rows -----------------------------------------------------------------------------------

  mirror(
    agentId: string,
    walletAddress: string,
    tokenAddress: string,
    symbol: string,
    f: LiveSwapFill,
    now: string,
  ): void {
    const chain = f.live.balancesAfter;
    if (!chain) return;
    mirrorChainBalances(this.d.book.db, { agentId, walletAddress }, chain, {
      now,
      mints: [tokenAddress],
      symbolOf: () => symbol,
    });
  }

  writeTradeKey(agentId: string, signalId: number, action: string, transactionId: string, now: string): void {
    // The chain already traded: record it anyway, but say loudly that the key was taken.
    if (!this.d.book.keys.insert(agentId, signalId, action, transactionId, now))
      this.logger.error("live trade recorded although its signal was already traded by this agent", {
        agentId,
        signalId,
        action,
        transactionId,
      });
  }

  /** A confirmed live trade's record: a new row, or the pending row it confirms. */
  writeTransaction(
    id: string,
    pendingId: string | null,
    now: string,
    sides: SwapSides,
    t: Pick<TradeRecord, "agentId" | "walletAddress" | "signalId" | "isDca" | "isTakeProfit" | "positionId"> & {
      fill: SwapFill;
    },
  ): void {
    const record: TradeRecord = {
      ...sides,
      ...t,
      id,
      now,
      mode: "live",
      status: "confirmed",
      positionId: t.positionId || null,
      rentDepositSol: t.fill.rentDepositSol,
      rentRefundSol: t.fill.rentRefundSol,
    };
    if (pendingId) this.d.book.confirmTransaction(pendingId, record);
    else this.d.book.insertTransaction(record);
  }
}
