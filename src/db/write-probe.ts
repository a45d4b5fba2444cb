import type { SqliteHandle } from "./client.ts";

/**
 * Whether the database takes a write right now: one upsert of a key_value row (the heartbeat's
 * "database writable", src/health/heartbeat.ts). A full disk, a read-only file system or a lock
 * held past busy_timeout answer false.
 */
export function databaseTakesWrites(sqlite: SqliteHandle["sqlite"], at: string): boolean {
  try {
    sqlite
      .query(
        "INSERT INTO key_value (key, value, updated_at) VALUES ('heartbeat', ?1, ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
      )
      .run(at);
    return true;
  } catch {
    return false;
  }
}
