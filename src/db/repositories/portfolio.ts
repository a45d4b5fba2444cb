import { SOL_MINT } from "../../money.ts";
import type { SqliteHandle } from "../client.ts";

// Reads behind GET /api/v1/portfolio (src/agents/portfolio.ts): one user's SOL holdings and
// closed trades across all their agents, each tagged with its wallet's mode. A wallet's mode is
// its `sim_` prefix (PRODUCT.md §3: simulation wallets are `sim_` + base58, live ones never are),
// so a closed trade keeps its mode after the agent switches or its wallet is replaced.

export type WalletMode = "simulation" | "live";

const MODE = (col: string) => `CASE WHEN substr(${col}, 1, 4) = 'sim_' THEN 'simulation' ELSE 'live' END`;

/** SOL balance of every wallet currently assigned to one of the user's agents. */
export function solHoldingsOfUser(h: SqliteHandle, userId: string): Array<{ mode: WalletMode; balance: string }> {
  return h.sqlite
    .query<{ mode: WalletMode; balance: string }, [string, string]>(
      `SELECT w.wallet_type AS mode, b.balance AS balance
         FROM agent_balances b
         JOIN agents a ON a.id = b.agent_id
         JOIN agent_wallets w ON w.agent_id = b.agent_id AND w.wallet_address = b.wallet_address
        WHERE a.user_id = ? AND b.token_address = ?`,
    )
    .all(userId, SOL_MINT);
}

/** Wallets of each mode assigned to the user's agents (a live wallet counts before it holds anything). */
export function walletCountsOfUser(h: SqliteHandle, userId: string): Array<{ mode: WalletMode; n: number }> {
  return h.sqlite
    .query<{ mode: WalletMode; n: number }, [string]>(
      `SELECT w.wallet_type AS mode, count(*) AS n FROM agent_wallets w JOIN agents a ON a.id = w.agent_id
        WHERE a.user_id = ? GROUP BY w.wallet_type`,
    )
    .all(userId);
}

/** P/L of every closed position of the user's agents, with its sale time. */
export function closedTradesOfUser(
  h: SqliteHandle,
  userId: string,
): Array<{ mode: WalletMode; profitLossSol: string; profitLossUsd: string; saleTime: string }> {
  return h.sqlite
    .query<{ mode: WalletMode; profitLossSol: string; profitLossUsd: string; saleTime: string }, [string]>(
      `SELECT ${MODE("s.wallet_address")} AS mode, s.profit_loss_sol AS profitLossSol,
              s.profit_loss_usd AS profitLossUsd, s.sale_time AS saleTime
         FROM historical_swaps s
         JOIN agents a ON a.id = s.agent_id
        WHERE a.user_id = ?`,
    )
    .all(userId);
}
