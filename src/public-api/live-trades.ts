import { and, desc, eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "../db/client.ts";
import { agentTransactions } from "../db/schema/index.ts";
import { type TransactionView, toTransactionView } from "../ledgers/agent-transactions.ts";

// GET /v1/agents/:agentId/live-trades (SPEC "Public API"): the agent's transactions made in live
// mode (real swaps), newest first, whatever their status (a `pending` one was sent and awaits
// confirmation). The caller has checked that the agent belongs to the user.

export function listLiveTrades(
  h: DatabaseHandle,
  agentId: string,
  page: { limit: number; offset: number },
): TransactionView[] {
  const t = agentTransactions;
  return h.db
    .select()
    .from(t)
    .where(and(eq(t.agentId, agentId), eq(t.tradingMode, "live")))
    .orderBy(desc(t.transactionTime), desc(sql`rowid`))
    .limit(page.limit)
    .offset(page.offset)
    .all()
    .map(toTransactionView);
}
