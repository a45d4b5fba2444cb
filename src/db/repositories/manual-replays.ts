import type { Database } from "bun:sqlite";

// Reads that answer a repeated manual trade (an Idempotency-Key seen before) from what the first
// request recorded: the position its buy opened, the SELL its sale wrote (a live swap still in
// doubt is LiveTradeRepository.signalInPlay; src/trading/manual-idempotency.ts). Read-only: the
// engine's modules write these tables.

/** The SELL a manual sale wrote (tokens in, SOL out), with the close it made if it closed. */
export interface ManualSaleRecord {
  transactionId: string;
  transactionHash: string | null;
  status: string;
  tokensSold: string;
  proceedsSol: string;
  historicalSwapId: string | null;
  profitLossSol: string | null;
  profitLossUsd: string | null;
  changePercent: string | null;
}

export class ManualReplayRepository {
  constructor(private readonly sqlite: Database) {}

  /** The position agent `agentId` opened on signal `signalId` (the engine's trade key of a buy). */
  positionOfSignal(agentId: string, signalId: number): { id: string; tradingMode: string } | null {
    return this.sqlite
      .query<{ id: string; tradingMode: string }, [string, number]>(
        "SELECT id, trading_mode AS tradingMode FROM positions WHERE agent_id = ? AND signal_id = ? LIMIT 1",
      )
      .get(agentId, signalId);
  }

  /** The SELL of position `positionId` carrying signal `signalId`, and the close it made, if any. */
  saleOfSignal(positionId: string, signalId: number): ManualSaleRecord | null {
    return this.sqlite
      .query<ManualSaleRecord, [string, number]>(
        `SELECT t.id AS transactionId, t.transaction_hash AS transactionHash, t.status, t.input_amount AS tokensSold,
           t.output_amount AS proceedsSol, h.id AS historicalSwapId, h.profit_loss_sol AS profitLossSol,
           h.profit_loss_usd AS profitLossUsd, h.change_percent AS changePercent
         FROM agent_transactions t LEFT JOIN historical_swaps h ON h.sale_transaction_id = t.id
         WHERE t.position_id = ? AND t.signal_id = ? AND t.transaction_type = 'SELL' LIMIT 1`,
      )
      .get(positionId, signalId);
  }
}
