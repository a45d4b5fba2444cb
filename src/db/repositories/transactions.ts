import { and, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { agentTransactions } from "../schema/index.ts";

// agent_transactions reads of the HTTP CRUD and the public API. The trading engine's writes live
// with its settlement (src/trading), inside its trade transactions.

export type TransactionRecord = typeof agentTransactions.$inferSelect;

export interface TransactionFilter {
  agentId: string;
  walletAddress?: string;
  transactionType?: "BUY" | "SELL";
  startTime?: string;
  endTime?: string;
  signalId?: number;
  isDca?: boolean;
  isTakeProfit?: boolean;
  tradingMode?: string;
  limit: number;
  offset: number;
}

/** Newest transactionTime first; every filter narrows with AND. */
export function listTransactions(db: Db, q: TransactionFilter): TransactionRecord[] {
  const t = agentTransactions;
  const where: SQL[] = [eq(t.agentId, q.agentId)];
  if (q.walletAddress !== undefined) where.push(eq(t.walletAddress, q.walletAddress));
  if (q.transactionType !== undefined) where.push(eq(t.transactionType, q.transactionType));
  if (q.startTime !== undefined) where.push(gte(t.transactionTime, q.startTime));
  if (q.endTime !== undefined) where.push(lte(t.transactionTime, q.endTime));
  if (q.signalId !== undefined) where.push(eq(t.signalId, q.signalId));
  if (q.isDca !== undefined) where.push(eq(t.isDca, q.isDca));
  if (q.isTakeProfit !== undefined) where.push(eq(t.isTakeProfit, q.isTakeProfit));
  if (q.tradingMode !== undefined) where.push(eq(t.tradingMode, q.tradingMode));
  return db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.transactionTime), desc(sql`rowid`))
    .limit(q.limit)
    .offset(q.offset)
    .all();
}
