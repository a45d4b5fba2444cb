import type { Database } from "bun:sqlite";
import type { tradingSignals } from "../schema/trading.ts";

// Signals as the strategy lab reads them (backtest selection, source report) and the signal
// import writes them. Imported signals are stored already `processed`, so neither the queue nor
// the start-up recovery ever hands them to the trading engine (issue 17: they never trade).

export type LabSignal = Pick<
  typeof tradingSignals.$inferSelect,
  "id" | "tokenAddress" | "symbol" | "signalType" | "signalStrength" | "source" | "createdAt"
>;

export interface LabSignalFilter {
  source?: string;
  signalType?: string;
  minStrength?: number;
  startDate?: string;
  endDate?: string;
}

export type ImportedSignal = Omit<LabSignal, "id"> & { activationReason: string | null };

const COLUMNS = `id, token_address AS tokenAddress, symbol, signal_type AS signalType,
  signal_strength AS signalStrength, source, created_at AS createdAt`;

export class StrategyLabSignalRepository {
  constructor(private readonly sqlite: Database) {}

  /** The user's signals matching the filter, oldest first. */
  select(userId: string, f: LabSignalFilter): LabSignal[] {
    const where = ["user_id = ?"];
    const params: Array<string | number> = [userId];
    if (f.source !== undefined) {
      where.push("source = ?");
      params.push(f.source);
    }
    if (f.signalType !== undefined) {
      where.push("lower(signal_type) = lower(?)");
      params.push(f.signalType);
    }
    if (f.minStrength !== undefined) {
      where.push("signal_strength >= ?");
      params.push(f.minStrength);
    }
    if (f.startDate !== undefined) {
      where.push("created_at >= ?");
      params.push(f.startDate);
    }
    if (f.endDate !== undefined) {
      where.push("created_at <= ?");
      params.push(f.endDate);
    }
    return this.sqlite
      .query<LabSignal, Array<string | number>>(
        `SELECT ${COLUMNS} FROM trading_signals WHERE ${where.join(" AND ")} ORDER BY created_at, id`,
      )
      .all(...params);
  }

  /** The user's signals among `ids` (another user's ids are simply absent), oldest first. */
  byIds(userId: string, ids: readonly number[]): LabSignal[] {
    if (ids.length === 0) return [];
    const out: LabSignal[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      out.push(
        ...this.sqlite
          .query<LabSignal, Array<string | number>>(
            `SELECT ${COLUMNS} FROM trading_signals WHERE user_id = ? AND id IN (${chunk.map(() => "?").join(",")})`,
          )
          .all(userId, ...chunk),
      );
    }
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id));
  }

  /**
   * Inserts imported signals (status processed: never queued, never traded) in one transaction.
   * A row equal to a signal the user already has (same createdAt, token, type and source) is
   * skipped, so importing the same file twice, or an export into its own account, adds nothing.
   */
  insertImported(
    userId: string,
    rows: readonly ImportedSignal[],
    now: string,
  ): { inserted: LabSignal[]; skipped: number } {
    const exists = this.sqlite.query<{ one: number }, [string, string, string, string, string | null]>(
      `SELECT 1 AS one FROM trading_signals WHERE user_id = ? AND created_at = ? AND token_address = ?
          AND signal_type = ? AND source IS ? LIMIT 1`,
    );
    const ins = this.sqlite.query<{ id: number }, Array<string | number | null>>(
      `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, activation_reason,
         signal_strength, source, processing_status, processed_at, created_at, updated_at)
       VALUES (?, NULL, ?, ?, ?, ?, ?, ?, 'processed', ?, ?, ?) RETURNING id`,
    );
    return this.sqlite.transaction(() => {
      const inserted: LabSignal[] = [];
      let skipped = 0;
      for (const r of rows) {
        if (exists.get(userId, r.createdAt, r.tokenAddress, r.signalType, r.source)) {
          skipped++;
          continue;
        }
        const { id } = ins.get(
          userId,
          r.tokenAddress,
          r.symbol,
          r.signalType,
          r.activationReason,
          r.signalStrength,
          r.source,
          now,
          r.createdAt,
          now,
        )!;
        inserted.push({
          id,
          tokenAddress: r.tokenAddress,
          symbol: r.symbol,
          signalType: r.signalType,
          signalStrength: r.signalStrength,
          source: r.source,
          createdAt: r.createdAt,
        });
      }
      return { inserted, skipped };
    })();
  }
}
