import type { Database } from "bun:sqlite";
import type { TradeMode } from "./metrics.ts";

/**
 * Open positions per trading mode, counted in SQLite at scrape time: the positions table is the
 * truth, so the gauge needs no bookkeeping in the engine (positions_status_idx keeps it cheap).
 */
export function openPositionsFromDatabase(sqlite: Database): () => Partial<Record<TradeMode, number>> {
  return () => {
    const rows = sqlite
      .query<{ mode: string; n: number }, []>(
        "SELECT trading_mode AS mode, COUNT(*) AS n FROM positions WHERE status = 'open' GROUP BY trading_mode",
      )
      .all();
    const out: Partial<Record<TradeMode, number>> = {};
    for (const r of rows) if (r.mode === "simulation" || r.mode === "live") out[r.mode] = r.n;
    return out;
  };
}
