import type { Database } from "bun:sqlite";
import type { agents, agentWallets } from "../schema/agents.ts";

// The reads of agents the trading engine needs: who may trade a signal (with config and wallet),
// whose an agent is, its live switch, and the wallets due an hourly balance snapshot.

type AgentColumns = typeof agents.$inferSelect;

/** An agent as the signal processor evaluates it: its config overrides and its trading wallet. */
export type TradingCandidate = Pick<
  AgentColumns,
  "id" | "userId" | "name" | "tradingMode" | "automatedTradingSimulation" | "automatedTradingLive"
> & {
  overrides: string | null;
  walletAddress: (typeof agentWallets.$inferSelect)["walletAddress"] | null;
};

/** The overrides column as stored (JSON text); resolveStoredConfig parses it. */
export class TradingAgentRepository {
  constructor(private readonly sqlite: Database) {}

  /**
   * Whether the user has any agent: an index-only probe. Signal intake asks it for every
   * signal, and the full candidates statement would run its two joins and sort even for a user
   * with no agent; this probe costs a fraction of that (docs/decisions.md "Performance").
   */
  hasAgents(userId: string): boolean {
    return (
      this.sqlite.query<{ one: number }, [string]>("SELECT 1 AS one FROM agents WHERE user_id = ? LIMIT 1").get(userId)
        ?.one === 1
    );
  }

  /** Every agent of the user, oldest first, with its config and the wallet of its trading mode. */
  candidates(userId: string): TradingCandidate[] {
    if (!this.hasAgents(userId)) return [];
    return this.sqlite
      .query<TradingCandidate, [string]>(
        `SELECT a.id, a.user_id AS userId, a.name, a.trading_mode AS tradingMode,
                a.automated_trading_simulation AS automatedTradingSimulation, a.automated_trading_live AS automatedTradingLive,
                c.overrides, w.wallet_address AS walletAddress
           FROM agents a
           LEFT JOIN agent_configs c ON c.agent_id = a.id
           LEFT JOIN agent_wallets w ON w.agent_id = a.id AND w.wallet_type = a.trading_mode
          WHERE a.user_id = ?
          ORDER BY a.created_at, a.id`,
      )
      .all(userId)
      .map((a) => ({
        ...a,
        automatedTradingSimulation: Boolean(a.automatedTradingSimulation),
        automatedTradingLive: Boolean(a.automatedTradingLive),
      }));
  }

  userOf(agentId: string): string | null {
    return (
      this.sqlite.query<{ u: string }, [string]>("SELECT user_id AS u FROM agents WHERE id = ?").get(agentId)?.u ?? null
    );
  }

  automatedTradingLive(agentId: string): boolean {
    const r = this.sqlite
      .query<{ flag: number }, [string]>("SELECT automated_trading_live AS flag FROM agents WHERE id = ?")
      .get(agentId);
    return Boolean(r?.flag);
  }

  /** Trading wallets (the agent's mode) without a balance snapshot after `since`. */
  walletsWithoutSnapshotSince(since: string): Array<{ agentId: string; walletAddress: string }> {
    return this.sqlite
      .query<{ agentId: string; walletAddress: string }, [string]>(
        `SELECT w.agent_id AS agentId, w.wallet_address AS walletAddress FROM agent_wallets w
           JOIN agents a ON a.id = w.agent_id AND a.trading_mode = w.wallet_type
          WHERE NOT EXISTS (SELECT 1 FROM balance_snapshots s WHERE s.agent_id = w.agent_id AND s.created_at > ?)`,
      )
      .all(since);
  }
}
