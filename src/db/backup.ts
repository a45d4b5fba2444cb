import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

// `trading-agent backup PATH`: a consistent online copy with SQLite's `VACUUM INTO`. It reads one
// snapshot in a read transaction, which WAL mode lets run beside the service's writers, and
// writes a compact database file. The copy goes to a temporary name beside PATH and is renamed
// only after `PRAGMA integrity_check` says ok, so PATH never holds a partial backup.

export class BackupError extends Error {}

export interface BackupResult {
  path: string;
  bytes: number;
  tables: number;
}

export function backupDatabase(databasePath: string, target: string, opts: { force?: boolean } = {}): BackupResult {
  if (databasePath === ":memory:")
    throw new BackupError("DATABASE_PATH is :memory:; there is nothing on disk to back up");
  const source = resolve(databasePath);
  const dest = resolve(target);
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (dest === source) throw new BackupError("the backup path is the database itself");
  if (existsSync(dest) && !opts.force) throw new BackupError(`${dest} already exists (use --force to replace it)`);
  if (!existsSync(dirname(dest))) throw new BackupError(`directory ${dirname(dest)} does not exist`);

  const tmp = join(dirname(dest), `.${basename(dest)}.${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  const db = new Database(source, { readwrite: true, create: false });
  try {
    // The service may be writing: wait for a lock rather than failing at once.
    db.exec("PRAGMA busy_timeout = 10000");
    db.query("VACUUM INTO ?").run(tmp);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new BackupError(`backup failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    db.close();
  }

  let tables = 0;
  const copy = new Database(tmp, { readonly: true });
  try {
    const rows = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    const verdict = rows.map((r) => r.integrity_check).join("; ");
    if (verdict !== "ok") throw new BackupError(`the copy failed integrity_check: ${verdict}`);
    tables =
      copy.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()?.n ?? 0;
  } catch (err) {
    copy.close();
    rmSync(tmp, { force: true });
    throw err instanceof BackupError ? err : new BackupError(`cannot verify the copy: ${String(err)}`);
  }
  copy.close();
  renameSync(tmp, dest);
  return { path: dest, bytes: statSync(dest).size, tables };
}
