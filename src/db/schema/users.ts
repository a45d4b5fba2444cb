import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 UTC strings (Date#toISOString), so they sort and compare as text.

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(), // stored lower-cased
  passwordHash: text("password_hash").notNull(),
  isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
  isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
  failedLoginAttempts: integer("failed_login_attempts").notNull().default(0),
  lockedUntil: text("locked_until"),
  // Second factor (src/auth/two-factor.ts): the TOTP secret sealed like webhook secrets; a pending
  // one between setup and enable; the last time step accepted, so a code is accepted once.
  totpSecret: text("totp_secret"),
  totpPendingSecret: text("totp_pending_secret"),
  totpLastStep: integer("totp_last_step"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Refresh tokens, stored as SHA-256 of the token; a family is one login's rotation chain. */
export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    jti: text("jti").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    rememberMe: integer("remember_me", { mode: "boolean" }).notNull().default(false),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
    replacedBy: text("replaced_by"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("refresh_tokens_family_idx").on(t.familyId), index("refresh_tokens_user_idx").on(t.userId)],
);

/** Access-token blacklist, written through from memory so a restart never un-revokes. */
export const revokedAccessTokens = sqliteTable(
  "revoked_access_tokens",
  {
    jti: text("jti").primaryKey(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("revoked_access_tokens_exp_idx").on(t.expiresAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull().unique(), // SHA-256 hex; the raw key is never stored
    prefix: text("prefix").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    lastUsedAt: text("last_used_at"),
    requestCount: integer("request_count").notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("api_keys_user_name_uq").on(t.userId, t.name)],
);

export const keyValue = sqliteTable("key_value", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

/** Recovery codes of the second factor: SHA-256 of each code, spent once. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

/** Audit log (src/audit/audit-log.ts): append-only; only the retention prune removes rows. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull(),
    at: text("at").notNull(),
    action: text("action").notNull(),
    actor: text("actor").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    target: text("target"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("audit_log_user_at_idx").on(t.userId, t.at), index("audit_log_at_idx").on(t.at)],
);
