import type { Database } from "bun:sqlite";
import { NotFoundError } from "../../errors.ts";
import type { SqliteHandle } from "../client.ts";
import type { agents } from "../schema/agents.ts";

// agents and agent_configs: the one module that reads and writes them. Ownership lookups live
// here too: every per-agent resource is reached through its agent, and an agent of another user
// answers 404 exactly like a missing one (SPEC "Agent endpoints"). Here, below agents/, ledgers/
// and wallets/, so each of them can check ownership without importing another
// (docs/decisions.md "Data layer").

/** The agents row as the drizzle schema types it (booleans as booleans). */
export type AgentRow = typeof agents.$inferSelect;

type StoredAgent = Omit<AgentRow, "automatedTradingSimulation" | "automatedTradingLive"> & {
  automatedTradingSimulation: number;
  automatedTradingLive: number;
};

const COLUMNS = `id, user_id AS userId, name, trading_mode AS tradingMode,
  automated_trading_simulation AS automatedTradingSimulation, automated_trading_live AS automatedTradingLive,
  created_at AS createdAt, updated_at AS updatedAt`;

const fromStored = (r: StoredAgent): AgentRow => ({
  ...r,
  automatedTradingSimulation: r.automatedTradingSimulation === 1,
  automatedTradingLive: r.automatedTradingLive === 1,
});

function findOwnedAgent(h: SqliteHandle, userId: string, agentId: string): AgentRow | null {
  const r = h.sqlite
    .query<StoredAgent, [string, string]>(`SELECT ${COLUMNS} FROM agents WHERE id = ? AND user_id = ?`)
    .get(agentId, userId);
  return r ? fromStored(r) : null;
}

/** The user's agent, or 404 "Agent not found". */
export function requireOwnedAgent(h: SqliteHandle, userId: string, agentId: string): AgentRow {
  const row = findOwnedAgent(h, userId, agentId);
  if (!row) throw new NotFoundError("Agent not found");
  return row;
}

export type AgentChanges = Pick<
  AgentRow,
  "name" | "tradingMode" | "automatedTradingSimulation" | "automatedTradingLive"
>;

export class AgentRepository {
  constructor(private readonly sqlite: Database) {}

  insert(a: Pick<AgentRow, "id" | "userId" | "name" | "tradingMode">, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO agents (id, user_id, name, trading_mode, automated_trading_simulation, automated_trading_live, created_at, updated_at)
         VALUES (?, ?, ?, ?, 0, 0, ?, ?)`,
      )
      .run(a.id, a.userId, a.name, a.tradingMode, now, now);
  }

  /** Newest first (SPEC); rowid breaks ties between agents created in the same millisecond. */
  list(userId: string, limit: number, offset: number): AgentRow[] {
    return this.sqlite
      .query<StoredAgent, [string, number, number]>(
        `SELECT ${COLUMNS} FROM agents WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(userId, limit, offset)
      .map(fromStored);
  }

  idsOf(userId: string): string[] {
    return this.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM agents WHERE user_id = ? ORDER BY created_at DESC, rowid DESC")
      .all(userId)
      .map((r) => r.id);
  }

  update(id: string, c: AgentChanges, now: string): void {
    this.sqlite
      .query(
        `UPDATE agents SET name = ?, trading_mode = ?, automated_trading_simulation = ?, automated_trading_live = ?, updated_at = ?
          WHERE id = ?`,
      )
      .run(c.name, c.tradingMode, Number(c.automatedTradingSimulation), Number(c.automatedTradingLive), now, id);
  }

  /** Foreign keys cascade to everything of the agent. */
  delete(id: string): void {
    this.sqlite.query("DELETE FROM agents WHERE id = ?").run(id);
  }

  /** The agent's stored configuration overrides (agent_configs), or null when it has none. */
  configOverrides(agentId: string): Record<string, unknown> | null {
    const row = this.sqlite
      .query<{ overrides: string }, [string]>("SELECT overrides FROM agent_configs WHERE agent_id = ?")
      .get(agentId);
    return row ? (JSON.parse(row.overrides) as Record<string, unknown>) : null;
  }

  saveConfigOverrides(agentId: string, overrides: Record<string, unknown>, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO agent_configs (agent_id, overrides, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(agent_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
      )
      .run(agentId, JSON.stringify(overrides), now);
  }

  clearConfigOverrides(agentId: string): void {
    this.sqlite.query("DELETE FROM agent_configs WHERE agent_id = ?").run(agentId);
  }
}
