import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { inTransaction } from "../db/client.ts";
import { ValidationError } from "../errors.ts";
import { credit } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import type { Logger } from "../logger.ts";
import { Big, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import { generateSimulationAddress } from "../wallets/simulation-address.ts";
import { type AgentRow, requireOwnedAgent } from "./ownership.ts";
import { applyConfigUpdate, INVALID_CONFIG_MESSAGE, resolveConfig, type TradingConfig } from "./trading-config.ts";

// Agents (SPEC "Agent", "Agent endpoints", "States and transitions"; PRODUCT.md §3).

export type TradingMode = "simulation" | "live";

export interface AgentView {
  id: string;
  userId: string;
  name: string;
  tradingMode: TradingMode;
  automatedTradingSimulation: boolean;
  automatedTradingLive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AgentUpdate {
  name?: string;
  tradingMode?: TradingMode;
  automatedTradingSimulation?: boolean;
  automatedTradingLive?: boolean;
}

export const toAgentView = (r: AgentRow): AgentView => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  tradingMode: r.trading_mode,
  automatedTradingSimulation: r.automated_trading_simulation === 1,
  automatedTradingLive: r.automated_trading_live === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class AgentService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** SIMULATION_INITIAL_SOL as exact decimal text. */
    private readonly initialSimulationSol: string,
  ) {}

  private get sqlite() {
    return this.database.sqlite;
  }

  /**
   * Creates the agent and, in the same transaction, its simulation wallet holding
   * SIMULATION_INITIAL_SOL as a SOL balance row, plus the first balance-history snapshot.
   */
  create(userId: string, input: { name: string; tradingMode?: TradingMode }): AgentView {
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    const walletAddress = generateSimulationAddress();
    inTransaction(this.database, () => {
      this.sqlite
        .query(
          `INSERT INTO agents (id, user_id, name, trading_mode, automated_trading_simulation, automated_trading_live, created_at, updated_at)
           VALUES (?, ?, ?, ?, 0, 0, ?, ?)`,
        )
        .run(id, userId, input.name, input.tradingMode ?? "simulation", now, now);
      this.seedSimulationWallet(id, walletAddress, now);
    });
    this.logger.info("agent created", {
      agentId: id,
      userId,
      tradingMode: input.tradingMode ?? "simulation",
      walletAddress,
    });
    return this.get(userId, id);
  }

  /**
   * Assigns (inserts) a simulation wallet row and its initial SOL balance; used at creation and
   * by wallet assignment. Call inside a transaction.
   */
  seedSimulationWallet(agentId: string, walletAddress: string, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO agent_wallets (id, agent_id, wallet_address, wallet_type, created_at, updated_at)
         VALUES (?, ?, ?, 'simulation', ?, ?)`,
      )
      .run(crypto.randomUUID(), agentId, walletAddress, now, now);
    this.seedInitialSol(agentId, walletAddress, now, "initial");
  }

  /** The initial SOL row of a fresh simulation wallet, and the matching snapshot. */
  seedInitialSol(agentId: string, walletAddress: string, now: string, reason: "initial" | "reset"): void {
    credit(this.database, { agentId, walletAddress, tokenAddress: SOL_MINT }, this.initialSimulationSol, {
      now,
      tokenSymbol: "SOL",
      decimals: SOL_DECIMALS,
    });
    recordBalanceSnapshot(this.database, {
      agentId,
      walletAddress,
      solBalance: this.initialSimulationSol,
      totalValueSol: this.initialSimulationSol,
      totalValueUsd: null,
      reason,
      now,
    });
  }

  get initialSol(): string {
    return this.initialSimulationSol;
  }

  /** Newest first (SPEC); rowid breaks ties between agents created in the same millisecond. */
  list(userId: string, page: { limit: number; offset: number }): AgentView[] {
    return this.sqlite
      .query<AgentRow, [string, number, number]>(
        "SELECT * FROM agents WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?",
      )
      .all(userId, page.limit, page.offset)
      .map(toAgentView);
  }

  get(userId: string, agentId: string): AgentView {
    return toAgentView(requireOwnedAgent(this.database, userId, agentId));
  }

  /** Ids of all the user's agents (for lists across agents). */
  agentIdsOf(userId: string): string[] {
    return this.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM agents WHERE user_id = ? ORDER BY created_at DESC, rowid DESC")
      .all(userId)
      .map((r) => r.id);
  }

  update(userId: string, agentId: string, patch: AgentUpdate): AgentView {
    if (Object.values(patch).every((v) => v === undefined)) throw new ValidationError(NO_UPDATE_FIELDS_MESSAGE);
    inTransaction(this.database, () => {
      const row = requireOwnedAgent(this.database, userId, agentId);
      // SPEC "States and transitions": updatedAt changes on every valid update, even within the
      // same millisecond as the previous write.
      const previous = Date.parse(row.updated_at);
      const now = new Date(Math.max(this.clock.now(), previous + 1)).toISOString();
      this.sqlite
        .query(
          `UPDATE agents SET name = ?, trading_mode = ?, automated_trading_simulation = ?, automated_trading_live = ?, updated_at = ?
            WHERE id = ?`,
        )
        .run(
          patch.name ?? row.name,
          patch.tradingMode ?? row.trading_mode,
          patch.automatedTradingSimulation === undefined
            ? row.automated_trading_simulation
            : Number(patch.automatedTradingSimulation),
          patch.automatedTradingLive === undefined ? row.automated_trading_live : Number(patch.automatedTradingLive),
          now,
          agentId,
        );
    });
    const view = this.get(userId, agentId);
    this.logger.info("agent updated", {
      agentId,
      fields: Object.keys(patch).filter((k) => patch[k as keyof AgentUpdate] !== undefined),
    });
    return view;
  }

  /**
   * Deletes the agent. Foreign keys cascade to its wallets, balances, positions, balance history,
   * configuration, transactions and swaps (SPEC: irreversible).
   */
  delete(userId: string, agentId: string): void {
    inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      this.sqlite.query("DELETE FROM agents WHERE id = ?").run(agentId);
    });
    this.logger.info("agent deleted", { agentId, userId });
  }

  // ---- trading configuration

  private overridesOf(agentId: string): Record<string, unknown> | null {
    const row = this.sqlite
      .query<{ overrides: string }, [string]>("SELECT overrides FROM agent_configs WHERE agent_id = ?")
      .get(agentId);
    return row ? (JSON.parse(row.overrides) as Record<string, unknown>) : null;
  }

  /** The complete configuration of an agent, defaults merged in (no ownership check: engine use). */
  configFor(agentId: string): TradingConfig {
    return resolveConfig(this.overridesOf(agentId));
  }

  getConfig(userId: string, agentId: string): TradingConfig {
    requireOwnedAgent(this.database, userId, agentId);
    return this.configFor(agentId);
  }

  /** PUT /agents/:id/config: merge only the sent fields; `null` resets to defaults. */
  updateConfig(userId: string, agentId: string, patch: unknown): TradingConfig {
    const config = inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      const result = applyConfigUpdate(this.overridesOf(agentId), patch);
      if (!result.ok) throw new ValidationError(INVALID_CONFIG_MESSAGE, result.details);
      if (patch === null) {
        this.sqlite.query("DELETE FROM agent_configs WHERE agent_id = ?").run(agentId);
      } else {
        this.sqlite
          .query(
            `INSERT INTO agent_configs (agent_id, overrides, updated_at) VALUES (?, ?, ?)
             ON CONFLICT(agent_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
          )
          .run(agentId, JSON.stringify(result.overrides), isoNow(this.clock));
      }
      return result.config;
    });
    this.logger.info("agent configuration updated", { agentId, reset: patch === null });
    return config;
  }
}

export const NO_UPDATE_FIELDS_MESSAGE =
  "At least one field must be provided: name, tradingMode, automatedTradingSimulation or automatedTradingLive";

/** SIMULATION_INITIAL_SOL (parsed as a number by the config schema) as exact decimal text. */
export const initialSolText = (v: number): string => new Big(String(v)).toFixed();
