import { NotFoundError } from "../../errors.ts";
import type { SqliteHandle } from "../client.ts";

// Ownership lookups of the agents table. Every per-agent resource is reached through its agent,
// and an agent of another user answers 404 exactly like a missing one (SPEC "Agent endpoints").
// Here, below agents/, ledgers/ and wallets/, so each of them can check ownership without
// importing another (docs/decisions.md "Data layer").

/** The agents row as stored (column names), read on every per-agent request. */
export type AgentRow = {
  id: string;
  user_id: string;
  name: string;
  trading_mode: "simulation" | "live";
  automated_trading_simulation: number;
  automated_trading_live: number;
  created_at: string;
  updated_at: string;
};

export function findOwnedAgent(h: SqliteHandle, userId: string, agentId: string): AgentRow | null {
  return h.sqlite
    .query<AgentRow, [string, string]>("SELECT * FROM agents WHERE id = ? AND user_id = ?")
    .get(agentId, userId);
}

/** The user's agent, or 404 "Agent not found". */
export function requireOwnedAgent(h: SqliteHandle, userId: string, agentId: string): AgentRow {
  const row = findOwnedAgent(h, userId, agentId);
  if (!row) throw new NotFoundError("Agent not found");
  return row;
}
