import type { Database } from "bun:sqlite";

type TradingMode = "simulation" | "live";

// trading_controls (src/db/schema/trading-controls.ts), read and written only from here: a user's
// pause switch, risk limits and daily-loss breaker per mode. No row reads as the defaults.

export interface ControlsRow {
  paused: boolean;
  pausedAt: string | null;
  limitsSet: boolean;
  maxOpenPositions: number | null;
  maxExposureSol: string | null;
  dailyLossLimitSol: string | null;
  trippedReason: string | null;
  trippedAt: string | null;
  resumedAt: string | null;
}

export interface StoredLimits {
  maxOpenPositions: number | null;
  maxExposureSol: string | null;
  dailyLossLimitSol: string | null;
}

const EMPTY: ControlsRow = {
  paused: false,
  pausedAt: null,
  limitsSet: false,
  maxOpenPositions: null,
  maxExposureSol: null,
  dailyLossLimitSol: null,
  trippedReason: null,
  trippedAt: null,
  resumedAt: null,
};

type Raw = {
  paused: number;
  paused_at: string | null;
  limits_set: number;
  max_open_positions: number | null;
  max_exposure_sol: string | null;
  daily_loss_limit_sol: string | null;
  tripped_reason: string | null;
  tripped_at: string | null;
  resumed_at: string | null;
};

export class TradingControlsRepository {
  constructor(private readonly sqlite: Database) {}

  get(userId: string, mode: TradingMode): ControlsRow {
    const r = this.sqlite
      .query<Raw, [string, string]>("SELECT * FROM trading_controls WHERE user_id = ? AND mode = ?")
      .get(userId, mode);
    if (!r) return { ...EMPTY };
    return {
      paused: r.paused === 1,
      pausedAt: r.paused_at,
      limitsSet: r.limits_set === 1,
      maxOpenPositions: r.max_open_positions,
      maxExposureSol: r.max_exposure_sol,
      dailyLossLimitSol: r.daily_loss_limit_sol,
      trippedReason: r.tripped_reason,
      trippedAt: r.tripped_at,
      resumedAt: r.resumed_at,
    };
  }

  /** Users who set a daily loss limit for the mode and whose breaker has not tripped. */
  usersWithDailyLossLimit(mode: TradingMode): string[] {
    return this.sqlite
      .query<{ user_id: string }, [string]>(
        `SELECT user_id FROM trading_controls
          WHERE mode = ? AND limits_set = 1 AND daily_loss_limit_sol IS NOT NULL AND tripped_at IS NULL`,
      )
      .all(mode)
      .map((r) => r.user_id);
  }

  private ensure(userId: string, mode: TradingMode, now: string): void {
    this.sqlite
      .query("INSERT OR IGNORE INTO trading_controls (user_id, mode, updated_at) VALUES (?, ?, ?)")
      .run(userId, mode, now);
  }

  /** Pauses the mode; an earlier pause keeps its time. */
  pause(userId: string, mode: TradingMode, now: string): void {
    this.sqlite.transaction(() => {
      this.ensure(userId, mode, now);
      this.sqlite
        .query(
          "UPDATE trading_controls SET paused = 1, paused_at = COALESCE(paused_at, ?), updated_at = ? WHERE user_id = ? AND mode = ?",
        )
        .run(now, now, userId, mode);
    })();
  }

  /** Lifts the pause and the tripped breaker; the daily loss counts from now on. */
  resume(userId: string, mode: TradingMode, now: string): void {
    this.sqlite.transaction(() => {
      this.ensure(userId, mode, now);
      this.sqlite
        .query(
          "UPDATE trading_controls SET paused = 0, paused_at = NULL, tripped_reason = NULL, tripped_at = NULL, resumed_at = ?, updated_at = ? WHERE user_id = ? AND mode = ?",
        )
        .run(now, now, userId, mode);
    })();
  }

  setLimits(userId: string, mode: TradingMode, l: StoredLimits, now: string): void {
    this.sqlite.transaction(() => {
      this.ensure(userId, mode, now);
      this.sqlite
        .query(
          "UPDATE trading_controls SET limits_set = 1, max_open_positions = ?, max_exposure_sol = ?, daily_loss_limit_sol = ?, updated_at = ? WHERE user_id = ? AND mode = ?",
        )
        .run(l.maxOpenPositions, l.maxExposureSol, l.dailyLossLimitSol, now, userId, mode);
    })();
  }

  /** Trips the breaker unless it is tripped already; true when this call tripped it. */
  trip(userId: string, mode: TradingMode, reason: string, now: string): boolean {
    return this.sqlite.transaction(() => {
      this.ensure(userId, mode, now);
      const r = this.sqlite
        .query(
          "UPDATE trading_controls SET tripped_reason = ?, tripped_at = ?, updated_at = ? WHERE user_id = ? AND mode = ? AND tripped_at IS NULL",
        )
        .run(reason, now, now, userId, mode);
      return r.changes > 0;
    })();
  }
}
