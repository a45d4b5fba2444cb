import type { Database } from "bun:sqlite";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { apiKeys, users } from "../schema/users.ts";

// api_keys: the one module that reads and writes the table (src/auth/api-keys.ts decides; the
// public API's usage report reads the counters). Only the SHA-256 digest of a key is stored.

export type ApiKeyRecord = typeof apiKeys.$inferSelect;
/** What the owner sees of a key (never its digest). */
export type ApiKeyListing = Pick<ApiKeyRecord, "id" | "name" | "prefix" | "scopes" | "lastUsedAt" | "createdAt">;

const LISTING = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
};

export interface KeyByDigest {
  id: string;
  userId: string;
  keyHash: string;
  scopes: string;
  ownerActive: number;
}

export class ApiKeyRepository {
  constructor(
    private readonly db: Db,
    private readonly sqlite: Database,
  ) {}

  /** Throws SQLite's UNIQUE error on a taken name; the caller maps it. */
  insert(row: typeof apiKeys.$inferInsert): void {
    this.db.insert(apiKeys).values(row).run();
  }

  listOf(userId: string): ApiKeyListing[] {
    return this.db
      .select(LISTING)
      .from(apiKeys)
      .where(eq(apiKeys.userId, userId))
      .orderBy(desc(apiKeys.createdAt))
      .all();
  }

  ownedListing(userId: string, id: string): ApiKeyListing | undefined {
    return this.db
      .select(LISTING)
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)))
      .get();
  }

  /** The user's key with its counters, or undefined. */
  owned(userId: string, id: string): ApiKeyRecord | undefined {
    return this.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)))
      .get();
  }

  /** False when the user has no such key. */
  deleteOwned(userId: string, id: string): boolean {
    return (
      this.db
        .delete(apiKeys)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)))
        .returning({ id: apiKeys.id })
        .all().length > 0
    );
  }

  /** The key with that digest and whether its owner is active: raw SQL, read on every API-key request. */
  byDigest(digest: string): KeyByDigest | null {
    return this.sqlite
      .query<KeyByDigest, [string]>(
        `SELECT k.id, k.user_id AS userId, k.key_hash AS keyHash, k.scopes, u.is_active AS ownerActive
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.key_hash = ?`,
      )
      .get(digest);
  }

  /** Counts a request and stamps lastUsedAt. */
  countRequestsAndStamp(id: string, count: number, lastUsedAt: string): void {
    this.db
      .update(apiKeys)
      .set({ lastUsedAt, requestCount: sql`${apiKeys.requestCount} + ${count}` })
      .where(eq(apiKeys.id, id))
      .run();
  }

  /** Counts requests (lastUsedAt is stamped at most once a minute). */
  countRequests(id: string, count: number): void {
    this.sqlite.query("UPDATE api_keys SET request_count = request_count + ? WHERE id = ?").run(count, id);
  }

  /** The owner's totals across all their keys, and their agent count (public API usage). */
  ownerTotals(userId: string): { keys: number; requests: number; agents: number } {
    return this.sqlite
      .query<{ keys: number; requests: number; agents: number }, [string, string]>(
        `SELECT (SELECT count(*) FROM api_keys WHERE user_id = ?1) AS keys,
                (SELECT coalesce(sum(request_count), 0) FROM api_keys WHERE user_id = ?1) AS requests,
                (SELECT count(*) FROM agents WHERE user_id = ?2) AS agents`,
      )
      .get(userId, userId)!;
  }

  /** For the CLI `api-key create --email`. */
  userIdByEmail(email: string): string | null {
    return this.db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()?.id ?? null;
  }
}
