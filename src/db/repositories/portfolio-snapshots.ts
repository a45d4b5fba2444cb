import type { SqliteHandle } from "../client.ts";
import type { portfolioSnapshots } from "../schema/index.ts";

// portfolio_snapshots: written by the portfolio snapshotter (src/agents/portfolio-history.ts),
// read by GET /portfolio/history.

type Row = typeof portfolioSnapshots.$inferSelect;
export type PortfolioPoint = Pick<Row, "at" | "totalValueSol" | "profitLossSol">;

/** Users that own at least one agent: the only ones with a portfolio to snapshot. */
export function usersWithAgents(h: SqliteHandle): string[] {
  return h.sqlite
    .query<{ id: string }, []>("SELECT DISTINCT user_id AS id FROM agents ORDER BY user_id")
    .all()
    .map((r) => r.id);
}

/** One slot's point; a second write into the same slot (a restart within it) keeps the first. */
export function insertPortfolioSnapshot(h: SqliteHandle, r: Row): void {
  h.sqlite
    .query(
      `INSERT OR IGNORE INTO portfolio_snapshots (user_id, mode, at, total_value_sol, profit_loss_sol)
       VALUES (?, ?, ?, ?, ?)`,
    )
    .run(r.userId, r.mode, r.at, r.totalValueSol, r.profitLossSol);
}

/** Deletes the user's points of `mode` older than `before` (retention); returns how many. */
export function prunePortfolioSnapshots(h: SqliteHandle, userId: string, mode: Row["mode"], before: string): number {
  return h.sqlite
    .query("DELETE FROM portfolio_snapshots WHERE user_id = ? AND mode = ? AND at < ?")
    .run(userId, mode, before).changes;
}

/** The user's points of `mode` inside [from, to], oldest first. */
export function portfolioSnapshotsBetween(
  h: SqliteHandle,
  userId: string,
  mode: Row["mode"],
  from: string,
  to: string,
): PortfolioPoint[] {
  return h.sqlite
    .query<PortfolioPoint, [string, string, string, string]>(
      `SELECT at, total_value_sol AS totalValueSol, profit_loss_sol AS profitLossSol
         FROM portfolio_snapshots
        WHERE user_id = ? AND mode = ? AND at >= ? AND at <= ?
        ORDER BY at ASC`,
    )
    .all(userId, mode, from, to);
}
