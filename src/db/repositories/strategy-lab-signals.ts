import type { Database } from "bun:sqlite";
import type { tradingSignals } from "../schema/trading.ts";

// Signals as the strategy lab reads them (backtest selection, source report). The signal import
// writes through SignalRepository.insertImported (signals.ts, the one writer of the table).

export type LabSignal = Pick<
  typeof tradingSignals.$inferSelect,
  "id" | "tokenAddress" | "symbol" | "signalType" | "signalStrength" | "source" | "createdAt" | "apiKeyId"
> & { apiKeyName: string | null };

export interface LabSignalFilter {
  source?: string;
  signalType?: string;
  minStrength?: number;
  startDate?: string;
  endDate?: string;
}

const COLUMNS = `id, token_address AS tokenAddress, symbol, signal_type AS signalType,
  signal_strength AS signalStrength, source, created_at AS createdAt, api_key_id AS apiKeyId,
  (SELECT k.name FROM api_keys k WHERE k.id = trading_signals.api_key_id) AS apiKeyName`;

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
}
