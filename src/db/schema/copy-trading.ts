import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { tradingSignals } from "./trading.ts";
import { users } from "./users.ts";

// Copy trading (docs/decisions.md "Copy trading"): the wallets a user follows, and each buy or
// sell detected in one of them. Timestamps are ISO 8601 UTC text.

/** A followed wallet. `watchFrom` is when it was created or last re-enabled: nothing older is copied. */
export const walletWatches = sqliteTable(
  "wallet_watches",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    label: text("label").notNull().default(""),
    /** Lamports, as a decimal integer string (SOL amounts are never floats in the engine). */
    minSolLamports: text("min_sol_lamports").notNull(),
    signalStrength: integer("signal_strength").notNull(),
    copySells: integer("copy_sells", { mode: "boolean" }).notNull().default(false),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    watchFrom: text("watch_from").notNull(),
    /** Newest signature read and decided; the next poll asks for what came after it. */
    lastSeenSignature: text("last_seen_signature"),
    lastError: text("last_error"),
    /** Block time → signal of the last copied trade, seconds. */
    lagSeconds: real("lag_seconds"),
    /**
     * Per-watch copy limits (docs/decisions/copy-trading-steering.md): a copied buy's size at most
     * (lamports), copied positions from this wallet open at once per agent, and SOL a day all
     * copied buys of this watch may spend per agent (lamports). Small by default.
     */
    maxSolPerTradeLamports: text("max_sol_per_trade_lamports").notNull().default("100000000"),
    maxOpenPositions: integer("max_open_positions").notNull().default(1),
    dailySolBudgetLamports: text("daily_sol_budget_lamports").notNull().default("500000000"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("wallet_watches_user_address_idx").on(t.userId, t.address),
    index("wallet_watches_enabled_idx").on(t.enabled),
  ],
);

/**
 * A buy or sell detected in a watched wallet: at most one per (watch, signature), written in the
 * same transaction as its signal, so overlapping polls and restarts never copy a trade twice.
 */
export const walletWatchTrades = sqliteTable(
  "wallet_watch_trades",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    watchId: text("watch_id")
      .notNull()
      .references(() => walletWatches.id, { onDelete: "cascade" }),
    signature: text("signature").notNull(),
    side: text("side", { enum: ["buy", "sell"] }).notNull(),
    mint: text("mint").notNull(),
    solLamports: text("sol_lamports").notNull(),
    tokenAmount: text("token_amount").notNull(),
    blockTime: text("block_time").notNull(),
    /** The signal it became; null for a sell of a watch that does not copy sells, or an ignored trade. */
    signalId: integer("signal_id").references(() => tradingSignals.id, { onDelete: "set null" }),
    detectedAt: text("detected_at").notNull(),
    /**
     * Why a transaction shaped like this trade was never copied: `not_signed` (the wallet did not
     * sign it), `not_a_swap` (no known DEX swap moved the SOL); null for a trade detected.
     */
    ignoredReason: text("ignored_reason", { enum: ["not_signed", "not_a_swap"] }),
  },
  (t) => [
    uniqueIndex("wallet_watch_trades_once_idx").on(t.watchId, t.signature),
    index("wallet_watch_trades_watch_idx").on(t.watchId, t.detectedAt),
  ],
);

/**
 * A watch group: several followed wallets that signal together when `minWallets` different ones
 * buy the same mint within `windowSeconds` (source `group:<name>`). `addresses` is a JSON array.
 */
export const walletWatchGroups = sqliteTable(
  "wallet_watch_groups",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    addresses: text("addresses").notNull(),
    windowSeconds: integer("window_seconds").notNull(),
    minWallets: integer("min_wallets").notNull(),
    signalStrength: integer("signal_strength").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("wallet_watch_groups_user_name_idx").on(t.userId, t.name)],
);

/** Each group signal: at most one per (group, mint) within the group's window (checked on claim). */
export const walletWatchGroupSignals = sqliteTable(
  "wallet_watch_group_signals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    groupId: text("group_id")
      .notNull()
      .references(() => walletWatchGroups.id, { onDelete: "cascade" }),
    mint: text("mint").notNull(),
    /** Block time of the buy that completed the count. */
    at: text("at").notNull(),
    signalId: integer("signal_id").references(() => tradingSignals.id, { onDelete: "set null" }),
  },
  (t) => [index("wallet_watch_group_signals_idx").on(t.groupId, t.mint, t.at)],
);
