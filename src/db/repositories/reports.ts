import type { Database } from "bun:sqlite";

// The trade records a P/L report replays (src/trading/pnl-report.ts): every confirmed BUY and
// SELL of each position of the user's agents that had a confirmed SELL in [from, to], in the
// order they happened. The whole position is read, not only the range, because what a sale
// realizes depends on the cost of every buy before it.

export interface ReportTrade {
  positionId: string;
  agentId: string;
  type: "BUY" | "SELL";
  time: string;
  inputAmount: string;
  outputAmount: string;
  fees: string;
  /** A SELL's SOL/USD price (its output is SOL). */
  outputPrice: string | null;
  tokenAddress: string;
  tokenSymbol: string;
  positionStatus: "open" | "closed";
}

export function reportTrades(
  sqlite: Database,
  q: { userId: string; agentId: string | null; mode: string; from: string; to: string },
): ReportTrade[] {
  return sqlite
    .query<ReportTrade, [string, string, string | null, string | null, string, string]>(
      `SELECT t.position_id AS positionId, t.agent_id AS agentId, t.transaction_type AS type,
              t.transaction_time AS time, t.input_amount AS inputAmount, t.output_amount AS outputAmount,
              COALESCE(t.fees, '0') AS fees, t.output_price AS outputPrice, p.token_address AS tokenAddress,
              p.token_symbol AS tokenSymbol, p.status AS positionStatus
         FROM agent_transactions t
         JOIN positions p ON p.id = t.position_id
         JOIN agents a ON a.id = t.agent_id
        WHERE a.user_id = ? AND t.status = 'confirmed' AND t.trading_mode = ? AND (? IS NULL OR t.agent_id = ?)
          AND t.position_id IN (SELECT s.position_id FROM agent_transactions s
                                 WHERE s.transaction_type = 'SELL' AND s.status = 'confirmed'
                                   AND s.transaction_time >= ? AND s.transaction_time <= ? AND s.position_id IS NOT NULL)
        ORDER BY t.position_id, t.transaction_time, t.rowid`,
    )
    .all(q.userId, q.mode, q.agentId, q.agentId, q.from, q.to);
}
