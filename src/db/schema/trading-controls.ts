import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

// A user's guard rails per trading mode (issue 34 items 1 and 2;
// docs/decisions/operator-experience-iv.md): the pause switch, the account-wide risk limits and
// the daily-loss breaker. No row = not paused, the mode's default limits, breaker not tripped.
// SOL amounts are decimal text, compared with Big (never floats).
export const tradingControls = sqliteTable(
  "trading_controls",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["simulation", "live"] }).notNull(),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    pausedAt: text("paused_at"),
    /** 0 until the user set the limits: the mode's documented defaults apply. */
    limitsSet: integer("limits_set", { mode: "boolean" }).notNull().default(false),
    maxOpenPositions: integer("max_open_positions"),
    maxExposureSol: text("max_exposure_sol"),
    dailyLossLimitSol: text("daily_loss_limit_sol"),
    trippedReason: text("tripped_reason"),
    trippedAt: text("tripped_at"),
    /** Last POST /trading/resume of this mode: the daily loss counts only what was lost after it. */
    resumedAt: text("resumed_at"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.mode] })],
);
