import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

// Account value over time per user and mode (issue 34 item 7; docs/decisions/portfolio-history.md):
// one row per 5-minute slot, written by the portfolio snapshotter, kept 30 days. SOL amounts are
// decimal text (never floats); `at` is the slot's start, ISO 8601.
export const portfolioSnapshots = sqliteTable(
  "portfolio_snapshots",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["simulation", "live"] }).notNull(),
    at: text("at").notNull(),
    totalValueSol: text("total_value_sol").notNull(),
    profitLossSol: text("profit_loss_sol").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.mode, t.at] })],
);
