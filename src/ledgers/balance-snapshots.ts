import type { SqliteHandle } from "../db/client.ts";
import { insertSnapshot, snapshotsBetween } from "../db/repositories/balance-snapshots.ts";
import { newRowId } from "../db/row-id.ts";

// Balance history (PRODUCT.md §3): snapshots of an agent's SOL balance and total value, one after
// every trade and one per hour. The trading engine writes "trade" and "hourly" snapshots with
// recordBalanceSnapshot inside its trade transaction; wallets write "initial" (a new simulation
// wallet) and "reset". GET /agents/:id/balance-history reads them with listBalanceHistory.

type SnapshotReason = "initial" | "trade" | "hourly" | "reset" | "deposit";

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

type Handle = SqliteHandle;

export function recordBalanceSnapshot(h: Handle, s: SnapshotInput): void {
  insertSnapshot(h, {
    id: newRowId(),
    agentId: s.agentId,
    walletAddress: s.walletAddress,
    solBalance: s.solBalance,
    totalValueSol: s.totalValueSol,
    totalValueUsd: s.totalValueUsd,
    reason: s.reason,
    createdAt: s.now,
  });
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
  return snapshotsBetween(h, agentId, { from: q.startDate ?? "", to: q.endDate ?? "9999", limit: q.limit }).map(
    ({ createdAt, ...r }) => ({ timestamp: createdAt, ...r }),
  );
}
