import type { Database } from "bun:sqlite";

// What an agent's filters.sources may name (src/trading/rules/signal-source.ts): the owner's API
// keys by name, followed wallets by address, watch groups by name. Signal hooks (`hook:`) are
// accepted by their form only.

/** One detail per entry of `sources` that names nothing the user has ("filters.sources.<i>: …"). */
export function unknownSources(sqlite: Database, userId: string, sources: readonly string[]): string[] {
  const has = (sql: string, value: string) =>
    sqlite.query<{ one: number }, [string, string]>(sql).get(userId, value) !== null;
  const out: string[] = [];
  sources.forEach((entry, i) => {
    const at = `filters.sources.${i}`;
    if (entry.startsWith("hook:")) return;
    if (entry.startsWith("wallet:")) {
      const address = entry.slice("wallet:".length);
      if (!has("SELECT 1 AS one FROM wallet_watches WHERE user_id = ? AND address = ?", address))
        out.push(`${at}: no watched wallet ${address}`);
    } else if (entry.startsWith("group:")) {
      const name = entry.slice("group:".length);
      if (!has("SELECT 1 AS one FROM wallet_watch_groups WHERE user_id = ? AND name = ?", name))
        out.push(`${at}: no watch group named "${name}"`);
    } else if (!has("SELECT 1 AS one FROM api_keys WHERE user_id = ? AND name = ?", entry)) {
      out.push(`${at}: no API key named "${entry}"`);
    }
  });
  return out;
}
