import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { applyMigrations } from "./migrate.ts";
import * as schema from "./schema/index.ts";
import { WalIndexHeader } from "./wal-index-header.ts";

export type Db = BunSQLiteDatabase<typeof schema>;

export interface DatabaseHandle {
  sqlite: Database;
  db: Db;
  path: string;
  close(): void;
}

/** What a repository needs of the handle: the raw connection (hot paths, transactions). */
export type SqliteHandle = Pick<DatabaseHandle, "sqlite">;

export interface OpenOptions {
  sync?: "normal" | "full";
  migrate?: boolean;
}

/** Opens the SQLite file with the PRAGMAs of PRODUCT.md §1 set in this one place, then migrates. */
export function openDatabase(path: string, opts: OpenOptions = {}): DatabaseHandle {
  const full = path === ":memory:" ? path : resolve(path);
  if (full !== ":memory:") mkdirSync(dirname(full), { recursive: true });
  const sqlite = new Database(full, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec(`PRAGMA synchronous = ${opts.sync === "full" ? "FULL" : "NORMAL"}`);
  // bun:sqlite defaults busy_timeout to 0 and SQLite leaves foreign keys off (STYLE.md traps).
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // Savepoint journals in memory: a group commit gives each write its own savepoint, and SQLite
  // copies every existing page a savepoint first modifies into its journal, by default a temp
  // file. A large fan-out writes thousands of pages there per signal; in memory it does no
  // file I/O for them (docs/decisions.md "Performance").
  sqlite.exec("PRAGMA temp_store = MEMORY");
  if (opts.migrate !== false) applyMigrations(sqlite);
  const db = drizzle(sqlite, { schema });
  return {
    sqlite,
    db,
    path: full,
    close() {
      try {
        sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch {
        // closing anyway
      }
      WalIndexHeader.release(sqlite);
      sqlite.close();
    },
  };
}

/**
 * Runs `fn` in one synchronous SQLite transaction. The callback type refuses a Promise: an
 * `await` inside a bun:sqlite transaction commits what ran before it (STYLE.md trap), so network
 * I/O goes before (reserve) or after (settle), never inside.
 */
export function inTransaction<T>(handle: { sqlite: Database }, fn: () => T extends Promise<unknown> ? never : T): T {
  return handle.sqlite.transaction(fn as () => T).immediate();
}

/** Joins the caller's transaction when one is open, else runs `fn` in its own immediate one. */
export function inOrJoinTransaction<T>(handle: SqliteHandle, fn: () => T): T {
  return handle.sqlite.inTransaction ? fn() : handle.sqlite.transaction(fn).immediate();
}

/** SELECT 1 on the connection (the health check); throws once the database is closed. */
export function selectOne(h: SqliteHandle): boolean {
  return h.sqlite.query<{ ok: number }, []>("SELECT 1 AS ok").get()?.ok === 1;
}
