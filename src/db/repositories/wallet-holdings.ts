import type { Database } from "bun:sqlite";
import { SOL_MINT } from "../../money.ts";
import type { agentBalances } from "../schema/agents.ts";

// The holdings of an agent's trading wallet, as the public API values them (SOL first).

export type Holding = Pick<
  typeof agentBalances.$inferSelect,
  "tokenAddress" | "tokenSymbol" | "balance" | "lastUpdated"
>;

export class WalletHoldingsRepository {
  constructor(private readonly sqlite: Database) {}

  walletOf(agentId: string, walletType: "simulation" | "live"): string | null {
    return (
      this.sqlite
        .query<{ a: string }, [string, string]>(
          "SELECT wallet_address AS a FROM agent_wallets WHERE agent_id = ? AND wallet_type = ?",
        )
        .get(agentId, walletType)?.a ?? null
    );
  }

  /** Every balance row of the wallet: SOL first, then tokens in the order they arrived. */
  holdings(agentId: string, walletAddress: string): Holding[] {
    return this.sqlite
      .query<Holding, [string, string]>(
        `SELECT token_address AS tokenAddress, token_symbol AS tokenSymbol, balance, last_updated AS lastUpdated
           FROM agent_balances WHERE agent_id = ? AND wallet_address = ?
          ORDER BY (token_address = '${SOL_MINT}') DESC, created_at ASC, rowid ASC`,
      )
      .all(agentId, walletAddress);
  }
}
