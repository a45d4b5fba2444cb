import type { Database } from "bun:sqlite";
import { untilNextCommit } from "../wal-index-header.ts";

// What may have changed a verified API key since it was verified (src/auth/api-keys.ts caches
// verifications; docs/decisions.md "Performance (issue 16)"). The database-wide change stamp
// (src/db/change-stamp.ts) would do, but every signal the key posts moves it, so under load a
// cache keyed by it would never hit. Two parts instead:
// - writes through THIS connection to the columns a verification reads (a key's digest, owner
//   and scopes; the owner's id and active flag; any deleted key or user, cascades included):
//   counted by TEMP triggers, whatever code runs the SQL (a TEMP trigger belongs to the
//   connection, is never stored in the file and fires for writes to main tables). The per-request
//   counters (request_count, last_used_at) do not fire them;
// - commits by any OTHER connection or process: `PRAGMA data_version`, which moves on every
//   such commit (any table: a coarse but safe signal) and not on this connection's own.
// Equal stamps therefore mean no write that could change a verification happened in between.

const SETUP = `
CREATE TEMP TABLE IF NOT EXISTS credential_writes (n INTEGER NOT NULL);
INSERT INTO temp.credential_writes (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.credential_writes);
CREATE TEMP TRIGGER IF NOT EXISTS credential_writes_key_update
  AFTER UPDATE OF id, user_id, key_hash, scopes ON main.api_keys
  BEGIN UPDATE temp.credential_writes SET n = n + 1; END;
CREATE TEMP TRIGGER IF NOT EXISTS credential_writes_key_delete
  AFTER DELETE ON main.api_keys
  BEGIN UPDATE temp.credential_writes SET n = n + 1; END;
CREATE TEMP TRIGGER IF NOT EXISTS credential_writes_user_update
  AFTER UPDATE OF id, is_active ON main.users
  BEGIN UPDATE temp.credential_writes SET n = n + 1; END;
CREATE TEMP TRIGGER IF NOT EXISTS credential_writes_user_delete
  AFTER DELETE ON main.users
  BEGIN UPDATE temp.credential_writes SET n = n + 1; END;
`;

/**
 * Installs the connection's triggers (idempotent) and returns a reader of the stamp: one
 * statement, run only after a commit by any connection (../wal-index-header.ts).
 */
export function credentialStamp(sqlite: Database): () => string {
  sqlite.exec(SETUP);
  const read = sqlite.query<{ v: number; n: number }, []>(
    "SELECT data_version AS v, (SELECT n FROM temp.credential_writes) AS n FROM pragma_data_version",
  );
  return untilNextCommit(sqlite, () => {
    const r = read.get();
    return `${r?.v}:${r?.n}`;
  });
}
