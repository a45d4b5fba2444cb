import type { Database } from "bun:sqlite";

/** Whether an admin account exists yet (serve(): the first start creates it before listening). */
export function adminExists(sqlite: Database): boolean {
  return sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM users WHERE is_admin = 1").get()!.n > 0;
}
