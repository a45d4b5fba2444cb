import type { Database } from "bun:sqlite";
import { NotFoundError } from "../errors.ts";

// Every per-agent resource is reached through its agent, and an agent of another user answers
// 404 exactly like a missing one (SPEC "Agent endpoints"; brief: never reveal other tenants).

export interface AgentRow {
  id: string;
  user_id: string;
  name: string;
  trading_mode: "simulation" | "live";
  automated_trading_simulation: number;
  automated_trading_live: number;
  created_at: string;
  updated_at: string;
}

export function findOwnedAgent(h: { sqlite: Database }, userId: string, agentId: string): AgentRow | null {
  return h.sqlite
    .query<AgentRow, [string, string]>("SELECT * FROM agents WHERE id = ? AND user_id = ?")
    .get(agentId, userId);
}

/** The user's agent, or 404 "Agent not found". */
export function requireOwnedAgent(h: { sqlite: Database }, userId: string, agentId: string): AgentRow {
  const row = findOwnedAgent(h, userId, agentId);
  if (!row) throw new NotFoundError("Agent not found");
  return row;
}
