import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

export const AGENT_NAME_INDEX = "agents_user_name_uq";

export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tradingMode: text("trading_mode", { enum: ["simulation", "live"] })
      .notNull()
      .default("simulation"),
    automatedTradingSimulation: integer("automated_trading_simulation", { mode: "boolean" }).notNull().default(false),
    automatedTradingLive: integer("automated_trading_live", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("agents_user_created_idx").on(t.userId, t.createdAt),
    // Names are unique per user, ignoring letter case, because Telegram's /pause NAME and the
    // signal decisions name agents (PRODUCT.md §7). Databases created before the index get it
    // from src/db/schema-repairs.ts, which renames existing duplicates first.
    uniqueIndex(AGENT_NAME_INDEX).on(t.userId, sql`lower(${t.name})`),
  ],
);

/** Only the fields the user changed; GET merges them over the defaults (SPEC "Agent trading configuration"). */
export const agentConfigs = sqliteTable("agent_configs", {
  agentId: text("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  overrides: text("overrides", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const agentWallets = sqliteTable(
  "agent_wallets",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    walletAddress: text("wallet_address").notNull(),
    walletType: text("wallet_type", { enum: ["simulation", "live"] }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("agent_wallets_agent_type_uq").on(t.agentId, t.walletType),
    // A wallet (live or simulation) belongs to one agent at a time (PRODUCT.md §3).
    uniqueIndex("agent_wallets_address_uq").on(t.walletAddress),
  ],
);

/**
 * Token balances per agent wallet. `balance` is an exact decimal string in whole-token units
 * (SOL for the wrapped-SOL mint); arithmetic goes through src/money, never floats.
 */
export const agentBalances = sqliteTable(
  "agent_balances",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    walletAddress: text("wallet_address").notNull(),
    tokenAddress: text("token_address").notNull(),
    tokenSymbol: text("token_symbol").notNull(),
    balance: text("balance").notNull(),
    decimals: integer("decimals"),
    lastUpdated: text("last_updated").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("agent_balances_uq").on(t.agentId, t.walletAddress, t.tokenAddress)],
);

/** Snapshots of SOL balance and total value: one after every trade and one per hour (PRODUCT.md §3). */
export const balanceSnapshots = sqliteTable(
  "balance_snapshots",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    walletAddress: text("wallet_address").notNull(),
    solBalance: text("sol_balance").notNull(),
    totalValueSol: text("total_value_sol").notNull(),
    totalValueUsd: text("total_value_usd"),
    reason: text("reason").notNull(), // trade | hourly | reset | deposit
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("balance_snapshots_agent_idx").on(t.agentId, t.createdAt)],
);
