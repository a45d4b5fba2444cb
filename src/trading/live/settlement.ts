import { type Clock, isoNow } from "../../clock.ts";
import { inTransaction } from "../../db/client.ts";
import type { PositionRecord } from "../../db/repositories/positions.ts";
import { TradingAgentRepository } from "../../db/repositories/trading-agents.ts";
import { newRowId } from "../../db/row-id.ts";
import { OperationalError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { LandedTransaction } from "../../market/landed-transaction.ts";
import type { ChainBalances } from "../../market/solana-rpc.ts";
import { Big, fromAtomic } from "../../money.ts";
import type { SwapFill } from "../executor.ts";
import { lamportsToSol, safeDiv, swapSides } from "../settlement/amounts.ts";
import type { TradeBook } from "../settlement/bookkeeping.ts";
import type { TradeReporter } from "../settlement/post-commit.ts";
import {
  type DcaSettled,
  type OpenSettled,
  type OpenTrade,
  type SaleRequest,
  type SaleSettled,
  type Settlement,
  type SettleOutcome,
  saleSignalId,
} from "../settlement/types.ts";
import type { TokenAccountCloser } from "./close-token-account.ts";
import { amountsFromChain, isLiveFill, type LiveSwapFill, rentOfFill } from "./fill.ts";
import { type LiveTrade, type LiveTradeJournal, saleIntent } from "./journal.ts";
import { splitOrderFee } from "./order-outcome.ts";
import { PendingLiveTrades } from "./settlement-pending.ts";
import { LiveRecorder } from "./settlement-recorder.ts";

// Live settlement. The engine hands it every live fill, and the reconciler
// the trades it resolved by signature. Live differs from simulation in three ways:
//   - nothing is recorded until the chain confirmed it; amounts are the chain's (getTransaction);
//   - balances are MIRRORED from the chain (setBalance), never debited: a trade that happened on
//     chain must always be recordable, whatever the ledger thought;
//   - an unknown outcome becomes a PENDING trade (live-pending.ts) that the reconciler settles or
//     fails later; it is never sent again.
// The bookkeeping (transaction record, position rows, DCA averaging, take-profit and close P/L,
// historical swap) is the simulation's too (bookkeeping.ts), and so is the post-commit step.

export interface LiveSettlementDeps {
  book: TradeBook;
  clock: Clock;
  logger: Logger;
  reporter: TradeReporter;
  journal: LiveTradeJournal;
  /** Gets the token account's rent back after a sale that closed its position (close-token-account.ts). */
  closer?: Pick<TokenAccountCloser, "afterClosingSale"> | null;
}

export class LiveSettlement implements Settlement {
  readonly logger: Logger;
  private readonly agents: TradingAgentRepository;
  private readonly pending: PendingLiveTrades;
  private readonly recorder: LiveRecorder;

  constructor(private readonly d: LiveSettlementDeps) {
    this.logger = d.logger.child({ component: "live" });
    this.agents = new TradingAgentRepository(d.book.db.sqlite);
    this.recorder = new LiveRecorder({ book: d.book, clock: d.clock, journal: d.journal, logger: this.logger });
    this.pending = new PendingLiveTrades({
      book: d.book,
      clock: d.clock,
      journal: d.journal,
      reporter: d.reporter,
      log: this.logger,
      writeTradeKey: (...a) => this.recorder.writeTradeKey(...a),
      userOf: (id) => this.agents.userOf(id),
    });
  }

  private liveFill(fill: SwapFill): LiveSwapFill {
    if (!isLiveFill(fill)) throw new OperationalError("live settlement received a fill without chain data");
    return fill;
  }

  // --- the engine's fills --------------------------------------------------------------------

  /**
   * Records a fill the chain has (or may have) taken. Should recording throw, the swap is not
   * "failed": the signature leaves the executor's in-flight set, so the reconciler records it
   * from the chain (retrying with backoff; a signature is recorded once), and the engine hears
   * "pending".
   */
  private recordOrDefer<T extends OpenSettled | DcaSettled | SaleSettled>(
    f: LiveSwapFill,
    record: () => SettleOutcome<T>,
  ): SettleOutcome<T> {
    try {
      return record();
    } catch (err) {
      this.d.journal.inFlight.delete(f.live.signature);
      this.logger.error("live swap sent but recording it failed; the reconciler records it from the chain", {
        signature: f.live.signature,
        status: f.status,
        reason: err instanceof Error ? err.message : String(err),
      });
      return { status: "pending", signature: f.live.signature };
    }
  }

  open(t: OpenTrade, fill: SwapFill, solUsd: Big): SettleOutcome<OpenSettled> {
    const f = this.liveFill(fill);
    return this.recordOrDefer(f, () => this.recordOpen(t, f, solUsd));
  }

  private recordOpen(t: OpenTrade, f: LiveSwapFill, solUsd: Big): SettleOutcome<OpenSettled> {
    if (f.status !== "pending") return { status: "settled", trade: this.recorder.settleOpen(t, f, solUsd, null) };
    this.pending.record(f, { kind: "open", userId: t.userId, signalId: t.signalId, symbol: t.symbol }, solUsd, {
      agentId: t.agentId,
      walletAddress: t.walletAddress,
      tokenAddress: t.tokenAddress,
      tokenSymbol: t.symbol,
      decimals: t.decimals,
      side: "BUY",
      positionId: null,
      signalKey: t.signalId,
      signalId: t.signalId,
      isDca: false,
      isTakeProfit: false,
    });
    return { status: "pending", signature: f.live.signature };
  }

  dca(p: PositionRecord, order: number, fill: SwapFill, solUsd: Big): SettleOutcome<DcaSettled> {
    const f = this.liveFill(fill);
    return this.recordOrDefer(f, () => this.recordDca(p, order, f, solUsd));
  }

  private recordDca(p: PositionRecord, order: number, f: LiveSwapFill, solUsd: Big): SettleOutcome<DcaSettled> {
    if (f.status !== "pending")
      return { status: "settled", trade: this.recorder.settleDca(p.id, order, f, solUsd, null, p.userId) };
    this.pending.record(f, { kind: "dca", positionId: p.id, order }, solUsd, {
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
    return { status: "pending", signature: f.live.signature };
  }

  sell(p: PositionRecord, sale: SaleRequest, fill: SwapFill, solUsd: Big): SettleOutcome<SaleSettled> {
    const f = this.liveFill(fill);
    const outcome = this.recordOrDefer(f, () => this.recordSell(p, sale, f, solUsd));
    if (outcome.status === "settled") this.closeTokenAccountAfter(outcome.trade, p.walletAddress, f);
    return outcome;
  }

  private recordSell(p: PositionRecord, sale: SaleRequest, f: LiveSwapFill, solUsd: Big): SettleOutcome<SaleSettled> {
    if (f.status !== "pending")
      return { status: "settled", trade: this.recorder.settleSell(p.id, sale, f, solUsd, null, p.userId) };
    const exitSignal = saleSignalId(sale);
    const intent = saleIntent(p.id, sale);
    this.pending.record(f, intent, solUsd, {
      agentId: p.agentId,
      walletAddress: p.walletAddress,
      tokenAddress: p.tokenAddress,
      tokenSymbol: p.tokenSymbol,
      decimals: p.tokenDecimals,
      side: "SELL",
      positionId: p.id,
      signalKey: exitSignal ?? null,
      signalId: exitSignal ?? p.signalId,
      isDca: false,
      isTakeProfit: sale.kind === "take_profit",
    });
    return { status: "pending", signature: f.live.signature };
  }

  // --- the reconciler's ----------------------------------------------------------------------

  /** A pending (or orphaned) live swap the chain refused or never included: nothing else changes. */
  failPending(row: LiveTrade, status: "failed" | "expired", reason: string): void {
    this.pending.fail(row, status, reason);
  }

  /** A pending swap the chain confirmed: settle it as its intent says, with the chain's amounts, and report it. */
  settleReconciled(row: LiveTrade, landed: LandedTransaction, balances: ChainBalances, solUsd: Big): void {
    // An order's Jupiter fee (journaled with it) is moved from the price into the fees.
    const amounts = splitOrderFee(
      row.side,
      amountsFromChain(
        row.side,
        row.walletAddress,
        row.tokenAddress,
        landed,
        { inAmount: row.inputAtomic, outAmount: row.expectedOutputAtomic },
        this.logger,
        BigInt(row.tipLamports),
      ),
      row.orderFeeBps,
    );
    const f: LiveSwapFill = {
      inputAtomic: amounts.inputAtomic,
      outputAtomic: amounts.outputAtomic,
      feesSol: lamportsToSol(landed.feeLamports + BigInt(row.tipLamports) + amounts.orderFeeLamports),
      ...rentOfFill(amounts),
      routes: row.router ? [row.router] : [],
      priceImpactPct: "0",
      slippageBps: 0,
      txHash: row.signature,
      status: "confirmed",
      live: {
        signature: row.signature,
        lastValidBlockHeight: row.lastValidBlockHeight,
        balancesAfter: balances,
        slot: landed.slot,
      },
    };
    const intent = row.intent;
    const userId = this.agents.userOf(row.agentId);
    if (!intent || !userId) {
      this.settleOrphan(row, f, solUsd);
      return;
    }
    const pendingTx = row.transactionId;
    let trade: OpenSettled | DcaSettled | SaleSettled;
    switch (intent.kind) {
      case "open":
        trade = this.recorder.settleOpen(
          {
            agentId: row.agentId,
            userId,
            walletAddress: row.walletAddress,
            signalId: intent.signalId,
            tokenAddress: row.tokenAddress,
            symbol: intent.symbol,
            decimals: row.tokenDecimals,
            mode: "live",
          },
          f,
          solUsd,
          pendingTx,
        );
        // A swap left "sending" by a crash had no pending row: its evaluation is marked here.
        if (!pendingTx) this.pending.markTraded(intent.signalId, row.agentId);
        break;
      case "dca":
        trade = this.recorder.settleDca(intent.positionId, intent.order, f, solUsd, pendingTx, userId);
        break;
      case "take_profit":
        trade = this.recorder.settleSell(
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
          pendingTx,
          userId,
        );
        break;
      case "close":
        trade = this.recorder.settleSell(
          intent.positionId,
          { kind: "close", reason: intent.reason, signalId: intent.signalId },
          f,
          solUsd,
          pendingTx,
          userId,
        );
        break;
      case "manual_sale":
        // The amount sold is the chain's (the fill's): the request's amount is not needed.
        trade = this.recorder.settleSell(
          intent.positionId,
          { kind: "manual_sale", amount: new Big(0), percent: intent.percent, signalId: intent.signalId },
          f,
          solUsd,
          pendingTx,
          userId,
        );
        break;
    }
    this.d.reporter.settled({ ...trade, reconciled: true }, this.logger);
    if (trade.kind === "sale") this.closeTokenAccountAfter(trade, row.walletAddress, f);
  }

  /**
   * A confirmed sale that closed its position and left the wallet none of the mint (balances read
   * at or after its slot): the empty token account is closed in the background for its rent.
   * Whatever becomes of that, the sale is recorded already.
   */
  private closeTokenAccountAfter(trade: SaleSettled, walletAddress: string, f: LiveSwapFill): void {
    if (!this.d.closer || !trade.closing || !trade.closed) return;
    const after = f.live.balancesAfter;
    if (!after || f.live.slot === undefined) return;
    if ((after.tokens.get(trade.tokenAddress)?.amount ?? 0n) !== 0n) return;
    this.d.closer.afterClosingSale({
      agentId: trade.agentId,
      walletAddress,
      mint: trade.tokenAddress,
      slot: f.live.slot,
      saleTransactionId: trade.transactionId,
    });
  }

  /**
   * A swap that landed after the process lost track of it (stopped while confirming): its
   * purpose is unknown, so it is recorded as a transaction without touching positions, the
   * balances are mirrored, and an error asks for a review.
   */
  private settleOrphan(row: LiveTrade, f: LiveSwapFill, solUsd: Big): void {
    const now = isoNow(this.d.clock);
    const txId = row.transactionId ?? newRowId();
    const buy = row.side === "BUY";
    const sol = lamportsToSol(buy ? f.inputAtomic : f.outputAtomic);
    const tokens = fromAtomic(buy ? f.outputAtomic : f.inputAtomic, row.tokenDecimals);
    const symbol =
      this.d.book.positions.openForAgentToken(row.agentId, row.tokenAddress)?.tokenSymbol ??
      row.tokenAddress.slice(0, 6);
    const sides = swapSides(buy, {
      tokenMint: row.tokenAddress,
      tokenSymbol: symbol,
      sol,
      tokens,
      tokenPriceUsd: safeDiv(sol, tokens).times(solUsd),
      solUsd,
      valueUsd: sol.times(solUsd),
    });
    inTransaction(this.d.book.db, () => {
      this.recorder.writeTransaction(txId, row.transactionId, now, sides, {
        agentId: row.agentId,
        walletAddress: row.walletAddress,
        signalId: null,
        fill: f,
        isDca: false,
        isTakeProfit: false,
        positionId: null,
      });
      this.recorder.mirror(row.agentId, row.walletAddress, row.tokenAddress, symbol, f, now);
      this.d.journal.resolve(row.signature, "confirmed", { transactionId: txId });
    });
    this.logger.error(
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
}
