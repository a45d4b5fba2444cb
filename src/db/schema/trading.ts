import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agents } from "./agents.ts";
import { users } from "./users.ts";

export const tradingSignals = sqliteTable(
  "trading_signals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    apiKeyId: text("api_key_id"),
    tokenAddress: text("token_address").notNull(),
    symbol: text("symbol"),
    signalType: text("signal_type").notNull(),
    activationReason: text("activation_reason"),
    signalStrength: integer("signal_strength").notNull(),
    source: text("source"),
    // pending → processing → processed | expired (PRODUCT.md §4: resumed or expired at start)
    processingStatus: text("processing_status").notNull().default("pending"),
    processedAt: text("processed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("trading_signals_user_created_idx").on(t.userId, t.createdAt),
    // Only the signals still to be decided (start-up recovery, SignalRepository.unfinished): a
    // signal is indexed while it waits and leaves when decided, and one stored already processed
    // (its owner has no agent) never enters. An index of every signal's status cost each insert
    // a B-tree write for rows no query asks about (docs/decisions/under-load.md).
    index("trading_signals_unfinished_idx").on(t.id).where(sql`processing_status IN ('pending','processing')`),
    // The tokens signalled in a window, found token by token (price history's recorder ticks,
    // src/db/repositories/price-bars.ts), instead of reading every signal of the window.
    index("trading_signals_token_created_idx").on(t.tokenAddress, t.createdAt),
  ],
);

/** Idempotency-Key of POST /trading-signals, per API key, kept 24 h (PRODUCT.md §4). */
export const signalIdempotencyKeys = sqliteTable(
  "signal_idempotency_keys",
  {
    apiKeyId: text("api_key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    bodyHash: text("body_hash").notNull(),
    signalId: integer("signal_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.idempotencyKey] })],
);

/** What each agent made of each signal: feeds logs, the public API's per-agent signal list. */
export const signalEvaluations = sqliteTable(
  "signal_evaluations",
  {
    signalId: integer("signal_id")
      .notNull()
      .references(() => tradingSignals.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    eligible: integer("eligible", { mode: "boolean" }).notNull(),
    reason: text("reason"),
    outcome: text("outcome"), // traded | failed | skipped | closed
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.signalId, t.agentId] }),
    index("signal_evaluations_agent_idx").on(t.agentId, t.signalId),
  ],
);

/**
 * One row per (agent, signal, action), written in the same SQLite transaction as the trade it
 * guards: a signal can never trade twice for an agent, even across a crash (PRODUCT.md §4).
 */
export const tradeIdempotency = sqliteTable(
  "trade_idempotency",
  {
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    signalId: integer("signal_id").notNull(),
    action: text("action").notNull(),
    transactionId: text("transaction_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.signalId, t.action] })],
);

export const agentTransactions = sqliteTable(
  "agent_transactions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    walletAddress: text("wallet_address").notNull(),
    transactionType: text("transaction_type", { enum: ["BUY", "SELL"] }).notNull(),
    transactionValueUsd: text("transaction_value_usd").notNull(),
    transactionTime: text("transaction_time").notNull(),
    destinationAddress: text("destination_address"),
    signalId: integer("signal_id"),
    fees: text("fees"),
    /** Token-account rent paid by this BUY / returned after this SELL (SOL; not part of `fees`). */
    rentDepositSol: text("rent_deposit_sol").notNull().default("0"),
    rentRefundSol: text("rent_refund_sol").notNull().default("0"),
    routes: text("routes", { mode: "json" }).$type<string[]>(),
    inputMint: text("input_mint").notNull(),
    inputSymbol: text("input_symbol"),
    inputAmount: text("input_amount").notNull(),
    inputPrice: text("input_price"),
    outputMint: text("output_mint").notNull(),
    outputSymbol: text("output_symbol"),
    outputAmount: text("output_amount").notNull(),
    outputPrice: text("output_price"),
    slippage: text("slippage"),
    priceImpact: text("price_impact"),
    isDca: integer("is_dca", { mode: "boolean" }).notNull().default(false),
    isTakeProfit: integer("is_take_profit", { mode: "boolean" }).notNull().default(false),
    tradingMode: text("trading_mode").notNull().default("simulation"),
    transactionHash: text("transaction_hash"),
    // confirmed | pending (live: sent, outcome unknown) | failed
    status: text("status").notNull().default("confirmed"),
    positionId: text("position_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("agent_transactions_agent_time_idx").on(t.agentId, t.transactionTime),
    index("agent_transactions_signal_idx").on(t.signalId),
    index("agent_transactions_status_idx").on(t.status),
  ],
);

/**
 * Positions. Amounts and prices are exact decimal strings. `status` is open | closed; the
 * partial unique index enforces "at most one open position per token" (SPEC facts) in SQLite.
 */
export const positions = sqliteTable(
  "positions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    walletAddress: text("wallet_address").notNull(),
    tradingMode: text("trading_mode").notNull().default("simulation"),
    tokenAddress: text("token_address").notNull(),
    tokenSymbol: text("token_symbol").notNull(),
    tokenDecimals: integer("token_decimals").notNull().default(6),
    signalId: integer("signal_id"),
    status: text("status", { enum: ["open", "closed"] })
      .notNull()
      .default("open"),
    /** Average entry price in SOL per token (grows with DCA). */
    entryPriceSol: text("entry_price_sol").notNull(),
    entryPriceUsd: text("entry_price_usd").notNull(),
    /** Tokens bought in total (first buy plus DCA). */
    purchaseAmount: text("purchase_amount").notNull(),
    /** SOL spent in total, fees included, rent excluded (first buy plus DCA): the "original cost". */
    costSol: text("cost_sol").notNull(),
    costUsd: text("cost_usd").notNull(),
    /** SOL the opening buy swapped (fees and rent excluded): the base of DCA order sizes. */
    openingSol: text("opening_sol").notNull().default("0"),
    /** Cost of the tokens still held (average cost × remaining), fees included, rent excluded. */
    heldCostSol: text("held_cost_sol").notNull().default("0"),
    remainingAmount: text("remaining_amount").notNull(),
    peakPriceSol: text("peak_price_sol").notNull(),
    lastPriceSol: text("last_price_sol"),
    lastPriceUsd: text("last_price_usd"),
    levelsHit: integer("levels_hit").notNull().default(0),
    realizedProfitSol: text("realized_profit_sol").notNull().default("0"),
    realizedProfitUsd: text("realized_profit_usd").notNull().default("0"),
    moonBagActivated: integer("moon_bag_activated", { mode: "boolean" }).notNull().default(false),
    moonBagAmount: text("moon_bag_amount"),
    dcaOrders: integer("dca_orders").notNull().default(0),
    purchaseTransactionId: text("purchase_transaction_id").notNull(),
    purchaseTransactionHash: text("purchase_transaction_hash").notNull(),
    openedAt: text("opened_at").notNull(),
    closedAt: text("closed_at"),
    closeReason: text("close_reason"),
    /**
     * The exit rules the position follows (stop-loss, take-profit, DCA, stale-trade; JSON of
     * src/agents/position-config.ts), taken at open: an agent's config edit changes it only when
     * applied to open positions. Null on positions opened before it existed: they follow the agent's.
     */
    exitConfig: text("exit_config"),
    /** When a config edit was applied to this open position (null: it follows what it opened with). */
    exitConfigAppliedAt: text("exit_config_applied_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("positions_one_open_per_token_uq").on(t.agentId, t.tokenAddress).where(sql`status = 'open'`),
    index("positions_status_idx").on(t.status),
    // "This agent's open positions" (the snapshot after every trade, position lists, wallet
    // checks): without it SQLite picks positions_status_idx and walks every open position of every
    // agent, which made a 1,000-agent fan-out quadratic (bench/ "Performance").
    index("positions_agent_status_idx").on(t.agentId, t.status),
  ],
);

export const historicalSwaps = sqliteTable(
  "historical_swaps",
  {
    id: text("id").primaryKey(),
    /**
     * No foreign key: a journal row outlives its agent (a swap that lands after the agent is
     * gone must still be found by signature, with the wallet that paid for it).
     */
    agentId: text("agent_id").notNull(),
    walletAddress: text("wallet_address").notNull(),
    tokenAddress: text("token_address").notNull(),
    tokenSymbol: text("token_symbol").notNull(),
    amount: text("amount").notNull(),
    purchasePrice: text("purchase_price").notNull(),
    salePrice: text("sale_price").notNull(),
    changePercent: text("change_percent").notNull(),
    profitLossUsd: text("profit_loss_usd").notNull(),
    profitLossSol: text("profit_loss_sol").notNull(),
    purchaseTime: text("purchase_time").notNull(),
    saleTime: text("sale_time").notNull(),
    purchaseTransactionId: text("purchase_transaction_id"),
    saleTransactionId: text("sale_transaction_id"),
    signalId: text("signal_id"),
    closeReason: text("close_reason").notNull(),
    positionId: text("position_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("historical_swaps_agent_sale_idx").on(t.agentId, t.saleTime),
    uniqueIndex("historical_swaps_position_uq").on(t.positionId),
  ],
);

/**
 * Journal of live swaps (PRODUCT.md §5 "a trade whose outcome is unknown is
 * never re-sent: it is reconciled from the chain by signature"). A row is written BEFORE
 * sendTransaction, keyed by the transaction's signature (known once signed), so a swap that was
 * sent is never forgotten, even across a crash. status: sending (written ahead, executor still
 * confirming) → confirmed | failed | expired, or pending (handed to the reconciler with its
 * intent) → confirmed | failed | expired. A row that never left the machine is deleted.
 */
export const liveTrades = sqliteTable(
  "live_trades",
  {
    signature: text("signature").primaryKey(),
    /**
     * No foreign key: a journal row outlives its agent (a swap that lands after the agent is
     * gone must still be found by signature, with the wallet that paid for it).
     */
    agentId: text("agent_id").notNull(),
    walletAddress: text("wallet_address").notNull(),
    tokenAddress: text("token_address").notNull(),
    side: text("side", { enum: ["BUY", "SELL"] }).notNull(),
    /** Input amount sent (atomic units) and the quote's expected output. */
    inputAtomic: text("input_atomic").notNull(),
    expectedOutputAtomic: text("expected_output_atomic").notNull(),
    tokenDecimals: integer("token_decimals").notNull(),
    /** The transaction's blockhash and its last valid height, both from our own getLatestBlockhash. */
    blockhash: text("blockhash").notNull(),
    lastValidBlockHeight: integer("last_valid_block_height").notNull(),
    /** The context slot of that getLatestBlockhash answer: the transaction cannot land at or before it. */
    signedAtSlot: integer("signed_at_slot").notNull(),
    /** The priority fee the transaction pays (lamports); an exit re-sent after expiry pays more. */
    priorityFeeLamports: integer("priority_fee_lamports").notNull(),
    /** The Jito tip inside the transaction (lamports; 0 without Jito): part of the swap's fees. */
    tipLamports: integer("tip_lamports").notNull().default(0),
    /**
     * Order mode (SWAP_API=order): Jupiter's requestId the signed order is executed under, its
     * router (iris, jupiterz, dflow, okx) and its fee (bps of the SOL side); null on other paths.
     */
    requestId: text("request_id"),
    router: text("router"),
    orderFeeBps: integer("order_fee_bps"),
    /** sending | pending | confirmed | failed | expired | unknown (trading/live/journal.ts). */
    status: text("status").notNull(),
    /** What the trade was for (open, dca, take_profit, close) as JSON; set when it is pending. */
    intent: text("intent"),
    /** The agent_transactions row recorded for it (pending, then confirmed or failed). */
    transactionId: text("transaction_id"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("live_trades_status_idx").on(t.status),
    index("live_trades_agent_token_idx").on(t.agentId, t.tokenAddress),
    index("live_trades_wallet_idx").on(t.walletAddress),
  ],
);
