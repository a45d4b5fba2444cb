import type { Database } from "bun:sqlite";
import { untilNextCommit } from "./wal-index-header.ts";

/**
 * A value that changes whenever the database may have changed: rows written through this
 * connection (`total_changes()`, which counts every INSERT, UPDATE and DELETE row, trigger and
 * foreign-key actions included, rolled back or not) and commits by any other connection or
 * process (`PRAGMA data_version`). Equal stamps mean no row changed in between, so a result read
 * under the first is still the result (src/http/middleware/response-cache.ts). The two
 * statements run only after a commit (./wal-index-header.ts): `PRAGMA data_version` takes a WAL
 * read lock, several times the cost of the header read that stands in for both (docs/decisions.md
 * "Performance").
 */
export function changeStamp(sqlite: Database): () => string {
  const version = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  const changes = sqlite.query<{ n: number }, []>("SELECT total_changes() AS n");
  return untilNextCommit(sqlite, () => `${version.get()?.data_version}:${changes.get()?.n}`);
}
