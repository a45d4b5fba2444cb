import { exitConfigText } from "../../agents/position-config.ts";
import { resolveConfig } from "../../agents/trading-config.ts";
import type { DatabaseHandle } from "../../db/client.ts";
import { AgentRepository } from "../../db/repositories/agents.ts";
import { type PositionRecord, PositionRepository } from "../../db/repositories/positions.ts";
import { SettlementRepository, type TradeTransaction } from "../../db/repositories/settlement.ts";
import { TradeKeyRepository } from "../../db/repositories/trade-keys.ts";
import { readBalance } from "../../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../../ledgers/balance-snapshots.ts";
import { Big, decNum, decStr, SOL_MINT } from "../../money.ts";
import type { SwapFill } from "../executor.ts";
import { applyDcaFill, type DcaFillResult } from "../rules/dca.ts";
import { closePnl, salePnl } from "../rules/pnl.ts";
import type { CloseReason, TradingMode } from "../rules/types.ts";
import { priceImpactPercent, type SwapSides } from "./amounts.ts";
import { type CloseResult, type SaleRequest, saleCloses, saleReason } from "./types.ts";

// The bookkeeping of a settled trade (PRODUCT.md §4), shared by both settlements: the
// agent_transactions record, the position opened, averaged by a DCA buy, reduced by a take-profit
// sale or closed with its historical swap, the trade idempotency key and the balance snapshot.
// Every method runs inside the caller's synchronous transaction and only writes (through the
// repositories); what differs between the settlements stays with them: where the amounts come
// from (quote or chain), how balances move (ledger debit and credit, or mirrored from the chain),
// pending trades and the live journal.

/** A trade's agent_transactions record before formatting. */
export interface TradeRecord extends SwapSides {
  id: string;
  agentId: string;
  walletAddress: string;
  now: string;
  signalId: number | null;
  fill: Pick<SwapFill, "feesSol" | "routes" | "slippageBps" | "priceImpactPct" | "txHash">;
  isDca: boolean;
  isTakeProfit: boolean;
  mode: TradingMode;
  status: "confirmed" | "pending";
  /** null: a live swap recorded without a position (pending open, orphan). */
  positionId: string | null;
  /** Token-account rent this BUY paid / this SELL got back (0 when absent; never in `fees`). */
  rentDepositSol?: Big;
  rentRefundSol?: Big;
}

export interface OpenedPosition {
  id: string;
  agentId: string;
  walletAddress: string;
  mode: TradingMode;
  tokenAddress: string;
  tokenSymbol: string;
  tokenDecimals: number;
  signalId: number;
  entryPriceSol: Big;
  entryPriceUsd: Big;
  tokens: Big;
  /** SOL swapped (fees and rent excluded): the position's openingSol, base of DCA sizes. */
  solSwapped: Big;
  /** SOL swapped plus fees (rent excluded). */
  cost: Big;
  solUsd: Big;
  transactionId: string;
  transactionHash: string;
  now: string;
}

export interface SaleFigures {
  sold: Big;
  proceeds: Big;
  feesSol: Big;
  salePriceSol: Big;
  /** Tokens the position holds after the sale. */
  remainingAfter: Big;
  /** The SELL's agent_transactions id; null when nothing was sold (a close after take-profit sold everything). */
  saleTransactionId: string | null;
  historicalSwapId: string;
  transactionHash: string;
}

const transactionColumns = (t: TradeRecord): TradeTransaction => ({
  id: t.id,
  agentId: t.agentId,
  walletAddress: t.walletAddress,
  transactionType: t.type,
  transactionValueUsd: decStr(t.valueUsd, 2),
  transactionTime: t.now,
  destinationAddress: t.tokenMint,
  signalId: t.signalId,
  fees: decStr(t.fill.feesSol),
  rentDepositSol: decStr(t.rentDepositSol ?? new Big(0)),
  rentRefundSol: decStr(t.rentRefundSol ?? new Big(0)),
  routes: t.fill.routes,
  inputMint: t.inputMint,
  inputSymbol: t.inputSymbol,
  inputAmount: decStr(t.inputAmount),
  inputPrice: decStr(t.inputPriceUsd, 12),
  outputMint: t.outputMint,
  outputSymbol: t.outputSymbol,
  outputAmount: decStr(t.outputAmount),
  outputPrice: decStr(t.outputPriceUsd, 12),
  slippage: String(t.fill.slippageBps),
  priceImpact: priceImpactPercent(t.fill),
  isDca: t.isDca,
  isTakeProfit: t.isTakeProfit,
  tradingMode: t.mode,
  transactionHash: t.fill.txHash,
  status: t.status,
  positionId: t.positionId,
});

export class TradeBook {
  readonly records: SettlementRepository;
  readonly keys: TradeKeyRepository;
  private readonly agents: AgentRepository;

  constructor(
    readonly db: Pick<DatabaseHandle, "sqlite">,
    readonly positions: PositionRepository = new PositionRepository(db.sqlite),
  ) {
    this.records = new SettlementRepository(db.sqlite);
    this.keys = new TradeKeyRepository(db.sqlite);
    this.agents = new AgentRepository(db.sqlite);
  }

  insertTransaction(t: TradeRecord): void {
    this.records.insertTransaction(transactionColumns(t));
  }

  /** The pending row of a live trade becomes the confirmed one; its route, slippage and impact stay as sent. */
  confirmTransaction(pendingId: string, t: TradeRecord): void {
    const c = transactionColumns(t);
    this.records.confirmPending(pendingId, { ...c, positionId: c.positionId || null }, t.now);
  }

  /**
   * The position a signal buy opens: everything bought remains, priced at the entry. It keeps the
   * agent's exit rules as they are now, read in the settling transaction (position-config.ts).
   */
  openPosition(o: OpenedPosition): void {
    this.positions.insertOpen(
      {
        id: o.id,
        agentId: o.agentId,
        walletAddress: o.walletAddress,
        tradingMode: o.mode,
        tokenAddress: o.tokenAddress,
        tokenSymbol: o.tokenSymbol,
        tokenDecimals: o.tokenDecimals,
        signalId: o.signalId,
        entryPriceSol: decStr(o.entryPriceSol),
        entryPriceUsd: decStr(o.entryPriceUsd, 12),
        purchaseAmount: decStr(o.tokens),
        costSol: decStr(o.cost),
        costUsd: decStr(o.cost.times(o.solUsd), 6),
        openingSol: decStr(o.solSwapped),
        heldCostSol: decStr(o.cost),
        purchaseTransactionId: o.transactionId,
        purchaseTransactionHash: o.transactionHash,
        exitConfig: exitConfigText(resolveConfig(this.agents.configOverrides(o.agentId))),
      },
      o.now,
    );
  }

  /** A DCA buy averages the position's entry and adds to its amount and cost (rules/dca.ts). Returns the position after it. */
  applyDca(
    p: PositionRecord,
    buy: { solSwapped: Big; feesSol: Big; tokens: Big },
    solUsd: Big,
    now: string,
  ): DcaFillResult {
    const next = applyDcaFill(
      {
        entryPriceSol: p.entryPriceSol,
        purchaseAmount: p.purchaseAmount,
        remainingAmount: p.remainingAmount,
        costSol: p.costSol,
        heldCostSol: p.heldCostSol,
        dcaOrders: p.dcaOrders,
      },
      { solSwapped: buy.solSwapped, feesSol: buy.feesSol, tokensReceived: buy.tokens },
    );
    const cost = buy.solSwapped.plus(buy.feesSol);
    this.positions.applyDca(
      p.id,
      {
        entryPriceSol: decStr(next.entryPriceSol),
        entryPriceUsd: decStr(next.entryPriceSol.times(solUsd), 12),
        purchaseAmount: decStr(next.purchaseAmount),
        remainingAmount: decStr(next.remainingAmount),
        costSol: decStr(next.costSol),
        costUsd: decStr(new Big(p.costUsd).plus(cost.times(solUsd)), 6),
        heldCostSol: decStr(next.heldCostSol),
        dcaOrders: next.dcaOrders,
      },
      now,
    );
    return next;
  }

  /**
   * Books a sale on its open position: a take-profit sale locks in its profit and records the level
   * and moon bag; a close (or the take-profit sale that empties the position) closes it, writes the
   * historical swap and answers the close's P/L. Returns the realized profit after the sale and the
   * CloseResult when the position closed.
   */
  recordSale(
    p: PositionRecord,
    sale: SaleRequest,
    s: SaleFigures,
    solUsd: Big,
    now: string,
  ): { realizedProfitSol: Big; closed: CloseResult | null } {
    let realizedAfter = new Big(p.realizedProfitSol);
    // A take-profit sale and a manual part book the same way: fewer tokens, the cost of those sold
    // out of the held cost, their profit locked in. A manual part leaves the levels as they are;
    // a moon bag already set aside is what remains.
    if (sale.kind !== "close") {
      const tp = salePnl({
        heldCostSol: p.heldCostSol,
        remainingAmount: p.remainingAmount,
        tokensSold: s.sold,
        proceedsSol: s.proceeds,
        feesSol: s.feesSol,
      });
      realizedAfter = realizedAfter.plus(tp.realizedProfitSol);
      this.positions.recordTakeProfit(
        p.id,
        {
          remainingAmount: decStr(s.remainingAfter),
          heldCostSol: decStr(tp.heldCostAfterSol),
          realizedProfitSol: decStr(realizedAfter),
          realizedProfitUsd: decStr(new Big(p.realizedProfitUsd).plus(tp.realizedProfitSol.times(solUsd)), 6),
          ...(sale.kind === "take_profit"
            ? {
                levelsHit: sale.levelsHit,
                moonBagActivated: sale.moonBagActivated,
                moonBagAmount: sale.moonBagAmount ? decStr(sale.moonBagAmount) : null,
              }
            : {
                levelsHit: p.levelsHit,
                moonBagActivated: p.moonBagActivated,
                moonBagAmount: p.moonBagActivated ? decStr(s.remainingAfter) : null,
              }),
        },
        now,
      );
      if (!saleCloses(sale)) return { realizedProfitSol: realizedAfter, closed: null };
    }
    const reason: CloseReason = saleReason(sale);
    return {
      realizedProfitSol: realizedAfter,
      closed: this.closePosition(p, reason, sale.kind === "close", realizedAfter, s, solUsd, now),
    };
  }

  private closePosition(
    p: PositionRecord,
    reason: CloseReason,
    finalSale: boolean,
    realizedAfter: Big,
    s: SaleFigures,
    solUsd: Big,
    now: string,
  ): CloseResult {
    // For a take-profit sale that empties the position, its profit (and the cost of every token
    // left) is already in realizedAfter and the close adds nothing more from this sale.
    const pnl = closePnl({
      costSol: p.costSol,
      heldCostSol: finalSale ? p.heldCostSol : "0",
      remainingAmount: finalSale ? p.remainingAmount : "0",
      entryPriceSol: p.entryPriceSol,
      realizedProfitSol: realizedAfter,
      proceedsSol: finalSale ? s.proceeds : 0,
      feesSol: finalSale ? s.feesSol : 0,
      solUsdPrice: solUsd,
    });
    this.positions.close(
      p.id,
      { remainingAmount: decStr(s.remainingAfter), closeReason: reason, lastPriceSol: decStr(s.salePriceSol) },
      now,
    );
    this.records.insertHistoricalSwap({
      id: s.historicalSwapId,
      agentId: p.agentId,
      walletAddress: p.walletAddress,
      tokenAddress: p.tokenAddress,
      tokenSymbol: p.tokenSymbol,
      amount: decStr(p.purchaseAmount),
      purchasePrice: decStr(p.entryPriceSol),
      salePrice: decStr(s.salePriceSol),
      changePercent: decStr(pnl.changePercent, 4),
      profitLossUsd: decStr(pnl.profitLossUsd, 6),
      profitLossSol: decStr(pnl.profitLossSol),
      purchaseTime: p.openedAt,
      saleTime: now,
      purchaseTransactionId: p.purchaseTransactionId,
      saleTransactionId: s.saleTransactionId,
      signalId: p.signalId === null ? null : String(p.signalId),
      closeReason: reason,
      positionId: p.id,
    });
    return {
      success: true,
      transactionId: s.saleTransactionId ?? "",
      historicalSwapId: s.historicalSwapId,
      profitLossSol: decNum(pnl.profitLossSol),
      profitLossUsd: decNum(pnl.profitLossUsd),
      changePercent: decNum(pnl.changePercent),
      transactionHash: s.transactionHash,
    };
  }

  /** Snapshot of an agent wallet's SOL balance and total value (after a trade, or hourly). */
  snapshot(
    agentId: string,
    walletAddress: string,
    solUsd: Big | null,
    now: string,
    reason: "trade" | "hourly" = "trade",
    /** The SOL balance when the caller has just written it (a debit's result). */
    solBalance?: Big,
  ): void {
    const sol = solBalance ?? readBalance(this.db, { agentId, walletAddress, tokenAddress: SOL_MINT });
    // Open positions valued at their last known price (entry price until the monitor priced them).
    let total = sol;
    for (const r of this.positions.openHoldings(agentId, walletAddress))
      total = total.plus(new Big(r.remaining).times(r.price));
    recordBalanceSnapshot(this.db, {
      agentId,
      walletAddress,
      solBalance: decStr(sol),
      totalValueSol: decStr(total, 9),
      totalValueUsd: solUsd ? decStr(total.times(solUsd), 2) : null,
      reason,
      now,
    });
  }
}
