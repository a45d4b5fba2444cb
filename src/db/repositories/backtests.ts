import type { Database } from "bun:sqlite";
import type { backtests, backtestTrades, backtestVariants } from "../schema/strategy-lab.ts";

// The one writer and reader of backtests, backtest_variants and backtest_trades.

export type BacktestRow = typeof backtests.$inferSelect;
export type BacktestStatus = "queued" | "running" | "done" | "failed";
export type BacktestVariantRow = typeof backtestVariants.$inferSelect;
export type BacktestTradeRow = typeof backtestTrades.$inferSelect;

const COLUMNS = `id, user_id AS userId, name, status, progress, request, error, created_at AS createdAt,
  updated_at AS updatedAt, started_at AS startedAt, finished_at AS finishedAt`;

const TRADE_COLUMNS = `backtest_id AS backtestId, variant, seq, signal_id AS signalId, token_address AS tokenAddress,
  opened_at AS openedAt, closed_at AS closedAt, entry_price_sol AS entryPriceSol, exit_price_sol AS exitPriceSol,
  amount, cost_sol AS costSol, profit_loss_sol AS profitLossSol, change_percent AS changePercent,
  close_reason AS closeReason, take_profit_levels AS takeProfitLevels, dca_orders AS dcaOrders`;

export class BacktestRepository {
  constructor(private readonly sqlite: Database) {}

  insert(row: Pick<BacktestRow, "id" | "userId" | "name" | "request" | "createdAt">): void {
    this.sqlite
      .query(
        `INSERT INTO backtests (id, user_id, name, status, progress, request, created_at, updated_at)
         VALUES (?, ?, ?, 'queued', 0, ?, ?, ?)`,
      )
      .run(row.id, row.userId, row.name, row.request, row.createdAt, row.createdAt);
  }

  /** The user's backtest, or null (another user's id reads as absent). */
  get(userId: string, id: string): BacktestRow | null {
    return this.sqlite
      .query<BacktestRow, [string, string]>(`SELECT ${COLUMNS} FROM backtests WHERE id = ? AND user_id = ?`)
      .get(id, userId);
  }

  list(userId: string, limit: number, offset: number): BacktestRow[] {
    return this.sqlite
      .query<BacktestRow, [string, number, number]>(
        `SELECT ${COLUMNS} FROM backtests WHERE user_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
      )
      .all(userId, limit, offset);
  }

  delete(userId: string, id: string): boolean {
    return this.sqlite.query("DELETE FROM backtests WHERE id = ? AND user_id = ?").run(id, userId).changes > 0;
  }

  /** The oldest queued backtest, claimed (status running) in the same statement. */
  claimNext(now: string): BacktestRow | null {
    return this.sqlite
      .query<BacktestRow, [string]>(
        `UPDATE backtests SET status = 'running', started_at = ?1, updated_at = ?1, progress = 0
          WHERE id = (SELECT id FROM backtests WHERE status = 'queued' ORDER BY created_at, id LIMIT 1)
          RETURNING ${COLUMNS}`,
      )
      .get(now);
  }

  /** A run interrupted by a stop or crash goes back to the queue (its partial results are discarded). */
  requeueRunning(now: string): number {
    return this.sqlite
      .query("UPDATE backtests SET status = 'queued', progress = 0, updated_at = ? WHERE status = 'running'")
      .run(now).changes;
  }

  setProgress(id: string, progress: number, now: string): void {
    this.sqlite.query("UPDATE backtests SET progress = ?, updated_at = ? WHERE id = ?").run(progress, now, id);
  }

  fail(id: string, error: string, now: string): void {
    this.sqlite
      .query("UPDATE backtests SET status = 'failed', error = ?, finished_at = ?, updated_at = ? WHERE id = ?")
      .run(error, now, now, id);
  }

  /** Stores every variant's result and marks the run done, in one transaction. */
  complete(
    id: string,
    variants: ReadonlyArray<Omit<BacktestVariantRow, "backtestId">>,
    trades: ReadonlyArray<Omit<BacktestTradeRow, "backtestId">>,
    now: string,
  ): boolean {
    const insVariant = this.sqlite.query(
      "INSERT INTO backtest_variants (backtest_id, position, name, summary, equity) VALUES (?, ?, ?, ?, ?)",
    );
    const insTrade = this.sqlite.query(
      `INSERT INTO backtest_trades (backtest_id, variant, seq, signal_id, token_address, opened_at, closed_at,
         entry_price_sol, exit_price_sol, amount, cost_sol, profit_loss_sol, change_percent, close_reason,
         take_profit_levels, dca_orders) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return this.sqlite.transaction(() => {
      // Deleted while it ran: nothing to store.
      const done = this.sqlite
        .query(
          "UPDATE backtests SET status = 'done', progress = 1, finished_at = ?, updated_at = ? WHERE id = ? AND status = 'running'",
        )
        .run(now, now, id).changes;
      if (done === 0) return false;
      for (const v of variants) insVariant.run(id, v.position, v.name, v.summary, v.equity);
      for (const t of trades)
        insTrade.run(
          id,
          t.variant,
          t.seq,
          t.signalId,
          t.tokenAddress,
          t.openedAt,
          t.closedAt,
          t.entryPriceSol,
          t.exitPriceSol,
          t.amount,
          t.costSol,
          t.profitLossSol,
          t.changePercent,
          t.closeReason,
          t.takeProfitLevels,
          t.dcaOrders,
        );
      return true;
    })();
  }

  variants(id: string): BacktestVariantRow[] {
    return this.sqlite
      .query<BacktestVariantRow, [string]>(
        "SELECT backtest_id AS backtestId, position, name, summary, equity FROM backtest_variants WHERE backtest_id = ? ORDER BY position",
      )
      .all(id);
  }

  /** Trades of a backtest (optionally one variant), in variant then time order, read lazily. */
  *trades(id: string, variant?: number): Generator<BacktestTradeRow> {
    const q =
      variant === undefined
        ? this.sqlite.query<BacktestTradeRow, [string]>(
            `SELECT ${TRADE_COLUMNS} FROM backtest_trades WHERE backtest_id = ? ORDER BY variant, seq`,
          )
        : null;
    const rows =
      q?.iterate(id) ??
      this.sqlite
        .query<BacktestTradeRow, [string, number]>(
          `SELECT ${TRADE_COLUMNS} FROM backtest_trades WHERE backtest_id = ? AND variant = ? ORDER BY seq`,
        )
        .iterate(id, variant as number);
    yield* rows;
  }
}
