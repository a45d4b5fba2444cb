import type { Database } from "bun:sqlite";
import { untilNextCommit } from "../wal-index-header.ts";

// A change stamp for a few tables only (docs/decisions.md "Performance"). The
// database-wide stamp (src/db/change-stamp.ts) moves with every commit, so under a stream of
// signals a cache keyed by it never hits, though the signals touch none of the rows it keeps.
// Two parts:
// - writes through THIS connection to the watched tables (and columns): counted by TEMP
//   triggers, whatever code runs the SQL (a TEMP trigger belongs to the connection, is never
//   stored in the file, and fires for writes to main tables, foreign-key cascades included);
// - commits by any OTHER connection or process: `PRAGMA data_version`, which moves on every such
//   commit (any table: coarse but safe) and not on this connection's own.
// Equal stamps therefore mean no watched row changed in between. The statement runs only after a
// commit by anyone (../wal-index-header.ts).

interface WatchedTable {
  table: string;
  /** Trigger events: "INSERT", "DELETE", "UPDATE" or "UPDATE OF col, ...". */
  on: readonly string[];
}

/** Installs the connection's counter and triggers (idempotent) and returns a reader of the stamp. */
function tableWritesStamp(sqlite: Database, counter: string, watched: readonly WatchedTable[]): () => string {
  const triggers = watched.flatMap(({ table, on }) =>
    on.map(
      (event, i) => `CREATE TEMP TRIGGER IF NOT EXISTS ${counter}_${table}_${i} AFTER ${event} ON main.${table}
         BEGIN UPDATE temp.${counter} SET n = n + 1; END;`,
    ),
  );
  sqlite.exec(`
    CREATE TEMP TABLE IF NOT EXISTS ${counter} (n INTEGER NOT NULL);
    INSERT INTO temp.${counter} (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.${counter});
    ${triggers.join("\n")}`);
  const read = sqlite.query<{ v: number; n: number }, []>(
    `SELECT data_version AS v, (SELECT n FROM temp.${counter}) AS n FROM pragma_data_version`,
  );
  return untilNextCommit(sqlite, () => {
    const r = read.get();
    return `${r?.v}:${r?.n}`;
  });
}

/**
 * What a verified API key depends on (src/auth/api-keys.ts): a key's digest, owner and scopes; the
 * owner's id and active flag; a deleted key or user. The per-request counters (request_count,
 * last_used_at) are not watched: the intake writes them with every signal.
 */
export const credentialStamp = (sqlite: Database) =>
  tableWritesStamp(sqlite, "credential_writes", [
    { table: "api_keys", on: ["UPDATE OF id, user_id, key_hash, scopes", "DELETE"] },
    { table: "users", on: ["UPDATE OF id, is_active", "DELETE"] },
  ]);

/** A user's webhook endpoints (WebhookRepository.enabledOf): any write to the table. */
export const webhookStamp = (sqlite: Database) =>
  tableWritesStamp(sqlite, "webhook_writes", [{ table: "webhooks", on: ["INSERT", "UPDATE", "DELETE"] }]);
