import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { tradingSignals } from "./trading.ts";
import { users } from "./users.ts";

// Signal hooks (PRODUCT.md §4, docs/decisions/signal-hooks.md): a URL carrying its own secret for
// senders that cannot set a header (TradingView alerts). Only the token's SHA-256 digest is kept,
// as for API keys. Timestamps are ISO 8601 UTC text.

export const signalHooks = sqliteTable(
  "signal_hooks",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The signals' source (`hook:<name>` unless set): what an agent's filters.sources names. */
    source: text("source").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** JSON array of addresses, CIDRs and the word `tradingview`; empty: any address. */
    allowedIps: text("allowed_ips").notNull().default("[]"),
    /** JSON object symbol → mint: the only way a symbol becomes a token address. */
    tokens: text("tokens").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("signal_hooks_user_name_idx").on(t.userId, t.name),
    uniqueIndex("signal_hooks_token_hash_idx").on(t.tokenHash),
  ],
);

/**
 * What a hook was sent and what it answered, the last SIGNAL_HOOK_DELIVERIES_KEPT per hook. A
 * delivery that stored a signal holds its body's digest and alertId: the same again within 10
 * minutes answers with that signal (docs/decisions/signal-hooks.md).
 */
export const signalHookDeliveries = sqliteTable(
  "signal_hook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    hookId: text("hook_id")
      .notNull()
      .references(() => signalHooks.id, { onDelete: "cascade" }),
    receivedAt: text("received_at").notNull(),
    /** The HTTP status answered. */
    status: integer("status").notNull(),
    /** The error text answered; null for a stored or repeated signal. */
    error: text("error"),
    signalId: integer("signal_id").references(() => tradingSignals.id, { onDelete: "set null" }),
    /** true: the same body or alertId as an earlier delivery, answered with its signal. */
    duplicate: integer("duplicate", { mode: "boolean" }).notNull().default(false),
    bodyHash: text("body_hash"),
    alertId: text("alert_id"),
  },
  (t) => [index("signal_hook_deliveries_hook_idx").on(t.hookId, t.id)],
);
