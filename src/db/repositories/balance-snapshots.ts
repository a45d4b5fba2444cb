import type { SqliteHandle } from "../client.ts";
import type { balanceSnapshots } from "../schema/index.ts";

// balance_snapshots: written inside trade transactions (raw prepared INSERT), read by
// GET /agents/:id/balance-history.

export type SnapshotRecord = typeof balanceSnapshots.$inferSelect;

export function insertSnapshot(h: SqliteHandle, s: SnapshotRecord): void {
  h.sqlite
    .query(
      `INSERT INTO balance_snapshots (id, agent_id, wallet_address, sol_balance, total_value_sol, total_value_usd, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(s.id, s.agentId, s.walletAddress, s.solBalance, s.totalValueSol, s.totalValueUsd, s.reason, s.createdAt);
}

/**
 * Snapshots inside [from, to], oldest first (a chart's order); when more than `limit` match, the
 * most recent `limit`.
 */
export function snapshotsBetween(
  h: SqliteHandle,
  agentId: string,
  q: { from: string; to: string; limit: number },
): Omit<SnapshotRecord, "id" | "agentId">[] {
  return h.sqlite
    .query<Omit<SnapshotRecord, "id" | "agentId">, [string, string, string, number]>(
      `SELECT createdAt, walletAddress, solBalance, totalValueSol, totalValueUsd, reason FROM (
         SELECT rowid AS seq, created_at AS createdAt, wallet_address AS walletAddress, sol_balance AS solBalance,
                total_value_sol AS totalValueSol, total_value_usd AS totalValueUsd, reason
           FROM balance_snapshots
          WHERE agent_id = ? AND created_at >= ? AND created_at <= ?
          ORDER BY created_at DESC, rowid DESC
          LIMIT ?)
       ORDER BY createdAt ASC, seq ASC`,
    )
    .all(agentId, q.from, q.to, q.limit);
}
