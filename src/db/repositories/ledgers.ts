import { and, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { agentBalances, agents, agentTransactions, historicalSwaps } from "../schema/index.ts";

// The part of the three per-agent ledgers (agent_balances, agent_transactions, historical_swaps)
// that is the same for each: a row reached through its agent's owner, inserted, patched, deleted.
// src/ledgers/ledger-crud.ts builds the HTTP CRUD of all three on it.

export type LedgerTable = typeof agentBalances | typeof agentTransactions | typeof historicalSwaps;

export interface LedgerRepository<R, I> {
  /** The row by id when its agent belongs to the user, else null (another user's id is a 404). */
  findOwned(userId: string, id: string): R | null;
  insert(row: I): void;
  update(id: string, changes: Partial<I>): void;
  remove(id: string): void;
}

function ledgerRepository<T extends LedgerTable>(
  db: Db,
  table: T,
): LedgerRepository<T["$inferSelect"], T["$inferInsert"]> {
  // Every ledger table has the same id and agent_id columns; typed through one of them.
  const t = table as typeof agentBalances;
  return {
    findOwned: (userId, id) =>
      (db
        .select({ row: t })
        .from(t)
        .innerJoin(agents, eq(agents.id, t.agentId))
        .where(and(eq(t.id, id), eq(agents.userId, userId)))
        .get()?.row ?? null) as T["$inferSelect"] | null,
    insert: (row) => {
      db.insert(t)
        .values(row as typeof agentBalances.$inferInsert)
        .run();
    },
    update: (id, changes) => {
      db.update(t)
        .set(changes as Partial<typeof agentBalances.$inferInsert>)
        .where(eq(t.id, id))
        .run();
    },
    remove: (id) => {
      db.delete(t).where(eq(t.id, id)).run();
    },
  };
}

export type BalanceInsert = typeof agentBalances.$inferInsert;
export type TransactionInsert = typeof agentTransactions.$inferInsert;
export type SwapInsert = typeof historicalSwaps.$inferInsert;

export const balanceLedger = (db: Db) => ledgerRepository(db, agentBalances);
export const transactionLedger = (db: Db) => ledgerRepository(db, agentTransactions);
export const swapLedger = (db: Db) => ledgerRepository(db, historicalSwaps);
