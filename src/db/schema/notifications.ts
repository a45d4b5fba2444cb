import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

// Notifications out: webhook endpoints with their delivery queue, Telegram chat links
// and one-time link codes, and per-user notification preferences. Timestamps are ISO 8601 UTC
// text, except the queue's `next_attempt_at` (epoch ms, compared on every worker tick).

/** A user's webhook endpoint. The signing secret is stored only sealed (AES-256-GCM, docs/decisions.md). */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    sealedSecret: text("sealed_secret").notNull(),
    /** First failure of the current unbroken run of failures; null after any success. */
    failingSince: text("failing_since"),
    disabledAt: text("disabled_at"),
    disabledReason: text("disabled_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("webhooks_user_idx").on(t.userId, t.createdAt)],
);

/** One message to one endpoint; `id` is the Standard Webhooks `webhook-id`, the same on every retry. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    /** The exact body sent, so every retry carries the same bytes. */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    createdAt: text("created_at").notNull(),
    finishedAt: text("finished_at"),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
  ],
);

/** Every attempt of a delivery: what GET /webhooks/:id/deliveries shows. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    at: text("at").notNull(),
  },
  (t) => [index("webhook_attempts_webhook_idx").on(t.webhookId, t.id)],
);

/** A Telegram chat linked to a user (one user may link several chats; a chat belongs to one user). */
export const telegramLinks = sqliteTable(
  "telegram_links",
  {
    chatId: text("chat_id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    linkedAt: text("linked_at").notNull(),
    /** UTC date (YYYY-MM-DD) of the last daily summary sent to this chat. */
    lastSummaryOn: text("last_summary_on"),
  },
  (t) => [index("telegram_links_user_idx").on(t.userId)],
);

/** One-time link codes, stored as SHA-256 digests; deleted when used. */
export const telegramLinkCodes = sqliteTable(
  "telegram_link_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("telegram_link_codes_user_uq").on(t.userId)],
);

/** Which notifications a user wants and when to keep quiet. Absent row: the defaults. */
export const notificationPreferences = sqliteTable("notification_preferences", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  events: text("events", { mode: "json" }).$type<string[]>().notNull(),
  quietHours: text("quiet_hours", { mode: "json" }).$type<{ start: string; end: string; timezone: string } | null>(),
  updatedAt: text("updated_at").notNull(),
});
