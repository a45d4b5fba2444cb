import type { DatabaseHandle } from "../db/client.ts";
import { PositionRepository } from "../db/repositories/positions.ts";
import type { TradeMode } from "./metrics.ts";

/**
 * Open positions per trading mode, counted in SQLite at scrape time: the positions table is the
 * truth, so the gauge needs no bookkeeping in the engine (positions_status_idx keeps it cheap).
 */
export function openPositionsFromDatabase(sqlite: DatabaseHandle["sqlite"]): () => Partial<Record<TradeMode, number>> {
  const positions = new PositionRepository(sqlite);
  return () => positions.countOpenByMode();
}
