import { SOL_MINT } from "../../money.ts";
import type { SqliteHandle } from "../client.ts";
import type { agentBalances } from "../schema/index.ts";

// agent_balances: the one module that reads and writes the table. The balance ledger
// (src/ledgers/balance-ledger.ts) credits and debits through it inside trade transactions, so the
// statements are raw prepared SQL (bun:sqlite caches them per connection).

export type BalanceRecord = typeof agentBalances.$inferSelect;
type Key = { agentId: string; walletAddress: string; tokenAddress: string };

/** The row's columns under their schema (camelCase) names, optionally of a table alias. */
const columns = (t = "") =>
  `${t}id AS id, ${t}agent_id AS agentId, ${t}wallet_address AS walletAddress, ${t}token_address AS tokenAddress,
   ${t}token_symbol AS tokenSymbol, ${t}balance AS balance, ${t}decimals AS decimals,
   ${t}last_updated AS lastUpdated, ${t}created_at AS createdAt`;
const COLUMNS = columns();

export function findBalance(h: SqliteHandle, k: Key): BalanceRecord | null {
  return h.sqlite
    .query<BalanceRecord, [string, string, string]>(
      `SELECT ${COLUMNS} FROM agent_balances WHERE agent_id = ? AND wallet_address = ? AND token_address = ?`,
    )
    .get(k.agentId, k.walletAddress, k.tokenAddress);
}

export function setBalanceText(h: SqliteHandle, id: string, balance: string, now: string): void {
  h.sqlite
    .query<unknown, [string, string, string]>("UPDATE agent_balances SET balance = ?, last_updated = ? WHERE id = ?")
    .run(balance, now, id);
}

export function insertBalance(
  h: SqliteHandle,
  r: Omit<BalanceRecord, "createdAt" | "lastUpdated"> & { now: string },
): void {
  h.sqlite
    .query<unknown, [string, string, string, string, string, string, number | null, string, string]>(
      `INSERT INTO agent_balances (id, agent_id, wallet_address, token_address, token_symbol, balance, decimals, last_updated, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(r.id, r.agentId, r.walletAddress, r.tokenAddress, r.tokenSymbol, r.balance, r.decimals, r.now, r.now);
}

/** The agent's balances, SOL first, then in creation order. */
export function listBalances(
  h: SqliteHandle,
  q: { agentId: string; walletAddress?: string; limit: number; offset: number },
): BalanceRecord[] {
  return h.sqlite
    .query<BalanceRecord, [string, string | null, string | null, number, number]>(
      `SELECT ${COLUMNS} FROM agent_balances WHERE agent_id = ? AND (? IS NULL OR wallet_address = ?)
        ORDER BY (token_address = '${SOL_MINT}') DESC, created_at ASC, rowid ASC LIMIT ? OFFSET ?`,
    )
    .all(q.agentId, q.walletAddress ?? null, q.walletAddress ?? null, q.limit, q.offset);
}

/** Every balance row of a wallet (wallet reassignment), or all but one token (reset keeps SOL). */
export function deleteWalletBalances(
  h: SqliteHandle,
  agentId: string,
  walletAddress: string,
  exceptToken?: string,
): void {
  h.sqlite
    .query<unknown, [string, string, string | null, string | null]>(
      "DELETE FROM agent_balances WHERE agent_id = ? AND wallet_address = ? AND (? IS NULL OR token_address <> ?)",
    )
    .run(agentId, walletAddress, exceptToken ?? null, exceptToken ?? null);
}

/** Token mints recorded for the wallet, SOL excluded. */
export function recordedTokenMints(h: SqliteHandle, agentId: string, walletAddress: string): string[] {
  return h.sqlite
    .query<{ t: string }, [string, string, string]>(
      "SELECT token_address AS t FROM agent_balances WHERE agent_id = ? AND wallet_address = ? AND token_address <> ?",
    )
    .all(agentId, walletAddress, SOL_MINT)
    .map((r) => r.t);
}

/** A wallet's holdings as the public API values them. */
export type Holding = Pick<BalanceRecord, "tokenAddress" | "tokenSymbol" | "balance" | "lastUpdated">;

/** Every balance row of the wallet: SOL first, then tokens in the order they arrived. */
export function walletHoldings(h: SqliteHandle, agentId: string, walletAddress: string): Holding[] {
  return h.sqlite
    .query<Holding, [string, string]>(
      `SELECT token_address AS tokenAddress, token_symbol AS tokenSymbol, balance, last_updated AS lastUpdated
         FROM agent_balances WHERE agent_id = ? AND wallet_address = ?
        ORDER BY (token_address = '${SOL_MINT}') DESC, created_at ASC, rowid ASC`,
    )
    .all(agentId, walletAddress);
}
