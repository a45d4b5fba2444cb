import type { Database } from "bun:sqlite";

// Balance history (PRODUCT.md §3): snapshots of an agent's SOL balance and total value, one after
// every trade and one per hour. The trading engine writes "trade" and "hourly" snapshots with
// recordBalanceSnapshot inside its trade transaction; wallets write "initial" (a new simulation
// wallet) and "reset". GET /agents/:id/balance-history reads them with listBalanceHistory.

export type SnapshotReason = "initial" | "trade" | "hourly" | "reset" | "deposit";

export interface SnapshotInput {
  agentId: string;
  walletAddress: string;
  /** Exact decimal text. */
  solBalance: string;
  totalValueSol: string;
  totalValueUsd: string | null;
  reason: SnapshotReason;
  /** ISO timestamp from the injected Clock. */
  now: string;
}

export interface BalanceSnapshotView {
  timestamp: string;
  walletAddress: string;
  solBalance: string;
  totalValueSol: string;
  totalValueUsd: string | null;
  reason: string;
}

type Handle = { sqlite: Database };

export function recordBalanceSnapshot(h: Handle, s: SnapshotInput): void {
  h.sqlite
    .query(
      `INSERT INTO balance_snapshots (id, agent_id, wallet_address, sol_balance, total_value_sol, total_value_usd, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      crypto.randomUUID(),
      s.agentId,
      s.walletAddress,
      s.solBalance,
      s.totalValueSol,
      s.totalValueUsd,
      s.reason,
      s.now,
    );
}

export interface HistoryQuery {
  startDate?: string;
  endDate?: string;
  limit: number;
}

/**
 * Snapshots inside [startDate, endDate], oldest first (a chart's order); when more than `limit`
 * match, the most recent `limit` are returned.
 */
export function listBalanceHistory(h: Handle, agentId: string, q: HistoryQuery): BalanceSnapshotView[] {
  const rows = h.sqlite
    .query<
      {
        created_at: string;
        wallet_address: string;
        sol_balance: string;
        total_value_sol: string;
        total_value_usd: string | null;
        reason: string;
      },
      [string, string, string, number]
    >(
      `SELECT * FROM (
         SELECT rowid AS seq, created_at, wallet_address, sol_balance, total_value_sol, total_value_usd, reason
           FROM balance_snapshots
          WHERE agent_id = ? AND created_at >= ? AND created_at <= ?
          ORDER BY created_at DESC, rowid DESC
          LIMIT ?)
       ORDER BY created_at ASC, seq ASC`,
    )
    .all(agentId, q.startDate ?? "", q.endDate ?? "9999", q.limit);
  return rows.map((r) => ({
    timestamp: r.created_at,
    walletAddress: r.wallet_address,
    solBalance: r.sol_balance,
    totalValueSol: r.total_value_sol,
    totalValueUsd: r.total_value_usd,
    reason: r.reason,
  }));
}
