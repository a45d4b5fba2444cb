import type { Database } from "bun:sqlite";

/** Whether an admin account exists yet (serve(): the first start creates it before listening). */
/** The admin accounts' ids: operator alerts (replication) go to them. */
export function adminUserIds(sqlite: Database): string[] {
  return sqlite
    .query<{ id: string }, []>("SELECT id FROM users WHERE is_admin = 1")
    .all()
    .map((r) => r.id);
}

export function adminExists(sqlite: Database): boolean {
  return sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM users WHERE is_admin = 1").get()!.n > 0;
}
