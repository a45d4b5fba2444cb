import type { Database } from "bun:sqlite";
import { embeddedMigrations } from "./embedded-migrations.ts";
import { ensureUniqueAgentNames } from "./schema-repairs.ts";

// Applies the migrations embedded at build time, in journal order, each in its own transaction,
// recording applied tags. It reads nothing from disk, so the compiled binary migrates from any
// working directory (STYLE.md drizzle trap).

export function applyMigrations(sqlite: Database, migrations = embeddedMigrations): string[] {
  sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)");
  const done = new Set(
    sqlite
      .query<{ tag: string }, []>("SELECT tag FROM __migrations")
      .all()
      .map((r) => r.tag),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.tag)) continue;
    const statements = m.sql
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter(Boolean);
    sqlite.transaction(() => {
      for (const stmt of statements) sqlite.exec(stmt);
      sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, new Date().toISOString());
    })();
    applied.push(m.tag);
  }
  ensureUniqueAgentNames(sqlite);
  return applied;
}
