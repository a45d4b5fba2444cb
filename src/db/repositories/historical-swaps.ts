import { and, desc, eq, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { historicalSwaps } from "../schema/index.ts";

// historical_swaps reads of the HTTP CRUD and the CSV export. The trading engine writes a row at
// each close, inside its trade transaction (src/trading).

export type SwapRecord = typeof historicalSwaps.$inferSelect;

export interface SwapFilter {
  agentId: string;
  walletAddress?: string;
  tokenAddress?: string;
  tokenSymbol?: string;
  startPurchaseTime?: string;
  endPurchaseTime?: string;
  startSaleTime?: string;
  endSaleTime?: string;
  signalId?: number;
  minProfitLossUsd?: number;
  maxProfitLossUsd?: number;
  closeReason?: string;
}

function conditions(q: SwapFilter): SQL[] {
  const s = historicalSwaps;
  const where: SQL[] = [eq(s.agentId, q.agentId)];
  if (q.walletAddress !== undefined) where.push(eq(s.walletAddress, q.walletAddress));
  if (q.tokenAddress !== undefined) where.push(eq(s.tokenAddress, q.tokenAddress));
  if (q.tokenSymbol !== undefined) where.push(eq(s.tokenSymbol, q.tokenSymbol));
  if (q.startPurchaseTime !== undefined) where.push(gte(s.purchaseTime, q.startPurchaseTime));
  if (q.endPurchaseTime !== undefined) where.push(lte(s.purchaseTime, q.endPurchaseTime));
  if (q.startSaleTime !== undefined) where.push(gte(s.saleTime, q.startSaleTime));
  if (q.endSaleTime !== undefined) where.push(lte(s.saleTime, q.endSaleTime));
  // signal_id is text in the table (SPEC types it string); the query parameter is an integer.
  if (q.signalId !== undefined) where.push(eq(s.signalId, String(q.signalId)));
  // The amounts are decimal text; the filter bounds are numbers (SPEC), compared numerically.
  if (q.minProfitLossUsd !== undefined) where.push(sql`CAST(${s.profitLossUsd} AS REAL) >= ${q.minProfitLossUsd}`);
  if (q.maxProfitLossUsd !== undefined) where.push(sql`CAST(${s.profitLossUsd} AS REAL) <= ${q.maxProfitLossUsd}`);
  if (q.closeReason !== undefined) where.push(eq(s.closeReason, q.closeReason));
  return where;
}

/** Most recent sale first. */
export function listSwaps(db: Db, q: SwapFilter & { limit: number; offset: number }): SwapRecord[] {
  return db
    .select()
    .from(historicalSwaps)
    .where(and(...conditions(q)))
    .orderBy(desc(historicalSwaps.saleTime), desc(sql`rowid`))
    .limit(q.limit)
    .offset(q.offset)
    .all();
}

/**
 * Every matching row, most recent sale first, read lazily page by page on (saleTime, rowid), so
 * a large export never sits in memory at once.
 */
export function* iterateSwaps(db: Db, q: SwapFilter & { offset: number }, pageSize: number): Generator<SwapRecord> {
  const base = conditions(q);
  let cursor: { saleTime: string; seq: number } | null = null;
  let offset = q.offset;
  for (;;) {
    const where = [...base];
    if (cursor) {
      // The plain range term lets SQLite seek the (agent_id, sale_time) index to the cursor;
      // with the OR alone every page rescanned the agent's rows from the newest (quadratic).
      where.push(lte(historicalSwaps.saleTime, cursor.saleTime));
      where.push(
        or(
          lt(historicalSwaps.saleTime, cursor.saleTime),
          and(eq(historicalSwaps.saleTime, cursor.saleTime), sql`rowid < ${cursor.seq}`),
        ) as SQL,
      );
    }
    const page = db
      .select({ row: historicalSwaps, seq: sql<number>`rowid` })
      .from(historicalSwaps)
      .where(and(...where))
      .orderBy(desc(historicalSwaps.saleTime), desc(sql`rowid`))
      .limit(pageSize)
      .offset(offset)
      .all();
    offset = 0;
    for (const p of page) yield p.row;
    if (page.length < pageSize) return;
    const last = page[page.length - 1] as (typeof page)[number];
    cursor = { saleTime: last.row.saleTime, seq: last.seq };
  }
}
