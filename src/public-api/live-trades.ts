import type { DatabaseHandle } from "../db/client.ts";
import { listTransactions } from "../db/repositories/transactions.ts";
import { type TransactionView, toTransactionView } from "../ledgers/agent-transactions.ts";

// GET /v1/agents/:agentId/live-trades (SPEC "Public API"): the agent's transactions made in live
// mode (real swaps), newest first, whatever their status (a `pending` one was sent and awaits
// confirmation). The caller has checked that the agent belongs to the user.

export function listLiveTrades(
  h: DatabaseHandle,
  agentId: string,
  page: { limit: number; offset: number },
): TransactionView[] {
  return listTransactions(h.db, { agentId, tradingMode: "live", ...page }).map(toTransactionView);
}
