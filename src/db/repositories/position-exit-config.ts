import type { Database } from "bun:sqlite";

// The exit rules stored on open positions (positions.exit_config; src/agents/position-config.ts):
// rewritten only when a configuration edit is applied to open positions, and then recorded.

/** Gives every open position of the agent these exit rules, applied at `now`; returns how many. */
export function applyExitConfigToOpen(sqlite: Database, agentId: string, exitConfig: string, now: string): number {
  return sqlite
    .query(
      `UPDATE positions SET exit_config = ?, exit_config_applied_at = ?, updated_at = ?
       WHERE agent_id = ? AND status = 'open'`,
    )
    .run(exitConfig, now, now, agentId).changes;
}
