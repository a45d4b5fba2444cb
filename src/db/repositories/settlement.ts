import type { Database } from "bun:sqlite";
import type { agentTransactions, historicalSwaps } from "../schema/trading.ts";

// The rows a settled trade writes beside its position (src/db/repositories/positions.ts): the
// agent_transactions record of the swap (confirmed, or pending while a live swap is in doubt) and,
// when a position closes, its historical swap. Also the reads of those rows the trading rules
// need (time of the last trade) and the performance summary (closed trades in a range).

type TransactionColumns = typeof agentTransactions.$inferSelect;
type HistoricalSwapColumns = typeof historicalSwaps.$inferSelect;

/** A trade's agent_transactions row; created_at and updated_at are its transactionTime. */
export type TradeTransaction = Omit<TransactionColumns, "createdAt" | "updatedAt">;

/** What confirming a pending live trade rewrites (its route, slippage and impact stay as sent). */
export type ConfirmedFields = Pick<
  TransactionColumns,
  | "transactionValueUsd"
  | "fees"
  | "rentDepositSol"
  | "rentRefundSol"
  | "inputAmount"
  | "inputPrice"
  | "outputAmount"
  | "outputPrice"
  | "status"
  | "positionId"
>;

/** A closed position's historical swap; created_at and updated_at are its saleTime. */
export type NewHistoricalSwap = Omit<HistoricalSwapColumns, "createdAt" | "updatedAt">;

export type ClosedTrade = Pick<
  HistoricalSwapColumns,
  | "id"
  | "tokenAddress"
  | "tokenSymbol"
  | "profitLossSol"
  | "profitLossUsd"
  | "changePercent"
  | "closeReason"
  | "saleTime"
>;

/** See SettlementRepository.closingSale; the swap's fields are null when the SELL closed no position. */
interface ClosingSale {
  fees: string;
  rentRefundSol: string;
  /** The SELL's outputPrice: USD per SOL at the sale. */
  solUsd: string;
  historicalSwapId: string | null;
  profitLossSol: string | null;
  costSol: string | null;
}

export class SettlementRepository {
  constructor(private readonly sqlite: Database) {}

  insertTransaction(t: TradeTransaction): void {
    this.sqlite
      .query(
        `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time,
           destination_address, signal_id, fees, rent_deposit_sol, rent_refund_sol, routes, input_mint, input_symbol, input_amount,
           input_price, output_mint, output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit,
           trading_mode, transaction_hash, status, position_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.id,
        t.agentId,
        t.walletAddress,
        t.transactionType,
        t.transactionValueUsd,
        t.transactionTime,
        t.destinationAddress,
        t.signalId,
        t.fees,
        t.rentDepositSol,
        t.rentRefundSol,
        JSON.stringify(t.routes),
        t.inputMint,
        t.inputSymbol,
        t.inputAmount,
        t.inputPrice,
        t.outputMint,
        t.outputSymbol,
        t.outputAmount,
        t.outputPrice,
        t.slippage,
        t.priceImpact,
        t.isDca ? 1 : 0,
        t.isTakeProfit ? 1 : 0,
        t.tradingMode,
        t.transactionHash,
        t.status,
        t.positionId,
        t.transactionTime,
        t.transactionTime,
      );
  }

  /** The pending row of a live trade becomes the confirmed one, with the chain's amounts. */
  confirmPending(id: string, f: ConfirmedFields, now: string): void {
    this.sqlite
      .query(
        `UPDATE agent_transactions SET transaction_value_usd = ?, fees = ?, rent_deposit_sol = ?, rent_refund_sol = ?,
           input_amount = ?, input_price = ?, output_amount = ?, output_price = ?, status = ?, position_id = ?, updated_at = ?
           WHERE id = ?`,
      )
      .run(
        f.transactionValueUsd,
        f.fees,
        f.rentDepositSol,
        f.rentRefundSol,
        f.inputAmount,
        f.inputPrice,
        f.outputAmount,
        f.outputPrice,
        f.status,
        f.positionId,
        now,
        id,
      );
  }

  /**
   * A live SELL after which its token account was closed by a transaction of its own, with the
   * historical swap of the position it closed and that position's cost (null: no such SELL).
   */
  closingSale(saleTransactionId: string): ClosingSale | null {
    return (
      this.sqlite
        .query<ClosingSale, [string]>(
          `SELECT t.fees, t.rent_refund_sol AS rentRefundSol, t.output_price AS solUsd, h.id AS historicalSwapId,
                  h.profit_loss_sol AS profitLossSol, p.cost_sol AS costSol
             FROM agent_transactions t
             LEFT JOIN historical_swaps h ON h.sale_transaction_id = t.id
             LEFT JOIN positions p ON p.id = h.position_id
            WHERE t.id = ? AND t.transaction_type = 'SELL'`,
        )
        .get(saleTransactionId) ?? null
    );
  }

  /** What a token account's close changes on its SELL (fees, rent back) and on the historical swap (P/L). */
  recordAccountClose(
    saleTransactionId: string,
    sale: Pick<TransactionColumns, "fees" | "rentRefundSol">,
    swap: ({ id: string } & Pick<HistoricalSwapColumns, "profitLossSol" | "profitLossUsd" | "changePercent">) | null,
    now: string,
  ): void {
    this.sqlite
      .query(
        "UPDATE agent_transactions SET fees = ?, rent_refund_sol = ?, updated_at = ? WHERE id = ? AND transaction_type = 'SELL'",
      )
      .run(sale.fees, sale.rentRefundSol, now, saleTransactionId);
    if (!swap) return;
    this.sqlite
      .query(
        "UPDATE historical_swaps SET profit_loss_sol = ?, profit_loss_usd = ?, change_percent = ?, updated_at = ? WHERE id = ?",
      )
      .run(swap.profitLossSol, swap.profitLossUsd, swap.changePercent, now, swap.id);
  }

  /** A pending live trade the chain refused or never included. */
  markFailed(id: string, now: string): void {
    this.sqlite.query("UPDATE agent_transactions SET status = 'failed', updated_at = ? WHERE id = ?").run(now, id);
  }

  /** Time of the agent's last trade (any side, failed ones left out), for timing.minTimeBetweenTradesSeconds. */
  lastTradeAt(agentId: string): string | null {
    return (
      this.sqlite
        .query<{ t: string | null }, [string]>(
          "SELECT max(transaction_time) AS t FROM agent_transactions WHERE agent_id = ? AND status != 'failed'",
        )
        .get(agentId)?.t ?? null
    );
  }

  insertHistoricalSwap(s: NewHistoricalSwap): void {
    this.sqlite
      .query(
        `INSERT INTO historical_swaps (id, agent_id, wallet_address, token_address, token_symbol, amount, purchase_price, sale_price,
           change_percent, profit_loss_usd, profit_loss_sol, purchase_time, sale_time, purchase_transaction_id, sale_transaction_id,
           signal_id, close_reason, position_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id,
        s.agentId,
        s.walletAddress,
        s.tokenAddress,
        s.tokenSymbol,
        s.amount,
        s.purchasePrice,
        s.salePrice,
        s.changePercent,
        s.profitLossUsd,
        s.profitLossSol,
        s.purchaseTime,
        s.saleTime,
        s.purchaseTransactionId,
        s.saleTransactionId,
        s.signalId,
        s.closeReason,
        s.positionId,
        s.saleTime,
        s.saleTime,
      );
  }

  /** Closed trades of an agent with a sale time inside [start, end], oldest first. */
  closedTrades(agentId: string, start: string, end: string): ClosedTrade[] {
    return this.sqlite
      .query<ClosedTrade, [string, string, string]>(
        `SELECT id, token_address AS tokenAddress, token_symbol AS tokenSymbol, profit_loss_sol AS profitLossSol,
                profit_loss_usd AS profitLossUsd, change_percent AS changePercent, close_reason AS closeReason,
                sale_time AS saleTime
           FROM historical_swaps WHERE agent_id = ? AND sale_time >= ? AND sale_time <= ?
          ORDER BY sale_time ASC, rowid ASC`,
      )
      .all(agentId, start, end);
  }
}
