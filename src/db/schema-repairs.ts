import type { Database } from "bun:sqlite";
import { AGENT_NAME_INDEX } from "./schema/agents.ts";

// The project keeps one initial migration until a release, so a database created before a later
// change to that migration lacks what the change added. Each repair here brings such a database
// to the current schema, idempotently, after the migrations ran.

/**
 * Agent names unique per user, ignoring case (the index of src/db/schema/agents.ts). Existing
 * duplicates are renamed first: the oldest agent keeps its name, the others get " (2)", " (3)"
 * and so on, the lowest number whose name is free.
 */
export function ensureUniqueAgentNames(sqlite: Database): string[] {
  const has = (type: string, name: string) =>
    (sqlite
      .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM sqlite_master WHERE type = ? AND name = ?")
      .get(type, name)?.n ?? 0) > 0;
  if (!has("table", "agents") || has("index", AGENT_NAME_INDEX)) return [];
  const renamed: string[] = [];
  sqlite.transaction(() => {
    const rows = sqlite
      .query<{ id: string; userId: string; name: string }, []>(
        "SELECT id, user_id AS userId, name FROM agents ORDER BY user_id, created_at, rowid",
      )
      .all();
    const taken = new Map<string, Set<string>>();
    for (const r of rows) {
      const names = taken.get(r.userId) ?? new Set<string>();
      taken.set(r.userId, names);
      names.add(r.name.toLowerCase());
    }
    const seen = new Map<string, Set<string>>();
    const rename = sqlite.query<unknown, [string, string]>("UPDATE agents SET name = ? WHERE id = ?");
    for (const r of rows) {
      const mine = seen.get(r.userId) ?? new Set<string>();
      seen.set(r.userId, mine);
      if (!mine.has(r.name.toLowerCase())) {
        mine.add(r.name.toLowerCase());
        continue;
      }
      const names = taken.get(r.userId) as Set<string>;
      let n = 2;
      while (names.has(`${r.name} (${n})`.toLowerCase())) n++;
      const name = `${r.name} (${n})`;
      names.add(name.toLowerCase());
      mine.add(name.toLowerCase());
      rename.run(name, r.id);
      renamed.push(r.id);
    }
    sqlite.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${AGENT_NAME_INDEX} ON agents (user_id, lower(name))`);
  })();
  return renamed;
}
