import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

// Strategy lab: recorded price history, backtests and their results.

/**
 * One-minute OHLC bars per token, prices in SOL per whole token as decimal strings (exact, like
 * every price the engine keeps). `time` is the bar's start, epoch ms on a minute boundary. Not
 * owned by a user: a token's price is the same for everyone. Bounded: PRICE_HISTORY_DAYS after
 * each signal, older bars pruned.
 */
export const priceBars = sqliteTable(
  "price_bars",
  {
    tokenAddress: text("token_address").notNull(),
    time: integer("time").notNull(),
    open: text("open").notNull(),
    high: text("high").notNull(),
    low: text("low").notNull(),
    close: text("close").notNull(),
    /** "recorded" (the service's own ticks) or "imported" (HISTORY_DATA_URL). */
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenAddress, t.time] }), index("price_bars_time_idx").on(t.time)],
);

/**
 * Price impact the swap aggregator quoted, per token and trade-size bucket (src/price-impact.ts
 * `impactBucket`, by the SOL side of the quote), beside the bars: a backtest applies it to its
 * fills. `impactPct` is a fraction (0.01 = 1 %), the mean of the last `samples` quotes (at most
 * IMPACT_SAMPLES_MAX, so it follows the pool).
 */
export const priceImpacts = sqliteTable(
  "price_impacts",
  {
    tokenAddress: text("token_address").notNull(),
    sizeBucket: integer("size_bucket").notNull(),
    impactPct: text("impact_pct").notNull(),
    samples: integer("samples").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenAddress, t.sizeBucket] })],
);

/** A backtest run: queued → running → done | failed, with progress 0..1. */
export const backtests = sqliteTable(
  "backtests",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status").notNull(),
    progress: real("progress").notNull().default(0),
    /** The request as accepted (initialSol, signal selection, variants): the run is repeatable. */
    request: text("request").notNull(),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
  },
  (t) => [index("backtests_user_created_idx").on(t.userId, t.createdAt), index("backtests_status_idx").on(t.status)],
);

/** One variant's result: summary figures and the equity curve as JSON. */
export const backtestVariants = sqliteTable(
  "backtest_variants",
  {
    backtestId: text("backtest_id")
      .notNull()
      .references(() => backtests.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    summary: text("summary").notNull(),
    equity: text("equity").notNull(),
  },
  (t) => [primaryKey({ columns: [t.backtestId, t.position] })],
);

/** One simulated position of one variant, opening buy to close (like a historical swap). */
export const backtestTrades = sqliteTable(
  "backtest_trades",
  {
    backtestId: text("backtest_id")
      .notNull()
      .references(() => backtests.id, { onDelete: "cascade" }),
    variant: integer("variant").notNull(),
    seq: integer("seq").notNull(),
    signalId: integer("signal_id").notNull(),
    tokenAddress: text("token_address").notNull(),
    openedAt: text("opened_at").notNull(),
    closedAt: text("closed_at").notNull(),
    entryPriceSol: text("entry_price_sol").notNull(),
    exitPriceSol: text("exit_price_sol"),
    amount: text("amount").notNull(),
    costSol: text("cost_sol").notNull(),
    profitLossSol: text("profit_loss_sol").notNull(),
    changePercent: text("change_percent").notNull(),
    closeReason: text("close_reason").notNull(),
    takeProfitLevels: integer("take_profit_levels").notNull(),
    dcaOrders: integer("dca_orders").notNull(),
  },
  (t) => [primaryKey({ columns: [t.backtestId, t.variant, t.seq] })],
);
