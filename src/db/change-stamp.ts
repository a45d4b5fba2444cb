import type { Database } from "bun:sqlite";

/**
 * A value that changes whenever the database may have changed: rows written through this
 * connection (`total_changes()`, which counts every INSERT, UPDATE and DELETE row, trigger and
 * foreign-key actions included, rolled back or not) and commits by any other connection or
 * process (`PRAGMA data_version`). Equal stamps mean no row changed in between, so a result read
 * under the first is still the result (src/http/middleware/response-cache.ts). Costs two
 * table-less statements (well under a microsecond each).
 */
export function changeStamp(sqlite: Database): () => string {
  const version = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  const changes = sqlite.query<{ n: number }, []>("SELECT total_changes() AS n");
  return () => `${version.get()?.data_version}:${changes.get()?.n}`;
}
