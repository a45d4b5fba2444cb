import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { inTransaction } from "../db/client.ts";
import { AgentWalletRepository } from "../db/repositories/agent-wallets.ts";
import { AgentRepository } from "../db/repositories/agents.ts";
import { LiveTradeRepository } from "../db/repositories/live-trades.ts";
import { applyExitConfigToOpen } from "../db/repositories/position-exit-config.ts";
import { unknownSources } from "../db/repositories/signal-sources.ts";
import { AGENT_NAME_INDEX } from "../db/schema/agents.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { credit } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import type { Logger } from "../logger.ts";
import { Big, SOL_DECIMALS, SOL_MINT } from "../money.ts";
import { generateSimulationAddress } from "../wallets/simulation-address.ts";
import { type AgentRow, requireOwnedAgent } from "./ownership.ts";
import { exitConfigText } from "./position-config.ts";
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

const toAgentView = (r: AgentRow): AgentView => ({
  id: r.id,
  userId: r.userId,
  name: r.name,
  tradingMode: r.tradingMode,
  automatedTradingSimulation: r.automatedTradingSimulation,
  automatedTradingLive: r.automatedTradingLive,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class AgentService {
  private readonly agents: AgentRepository;
  private readonly wallets: AgentWalletRepository;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** SIMULATION_INITIAL_SOL as exact decimal text. */
    private readonly initialSimulationSol: string,
  ) {
    this.agents = new AgentRepository(database.sqlite);
    this.wallets = new AgentWalletRepository(database.sqlite);
  }

  /**
   * Creates the agent and, in the same transaction, its simulation wallet holding
   * SIMULATION_INITIAL_SOL as a SOL balance row, plus the first balance-history snapshot.
   */
  create(userId: string, input: { name: string; tradingMode?: TradingMode }): AgentView {
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    const walletAddress = generateSimulationAddress();
    nameConflict(() =>
      inTransaction(this.database, () => {
        this.agents.insert({ id, userId, name: input.name, tradingMode: input.tradingMode ?? "simulation" }, now);
        this.seedSimulationWallet(id, walletAddress, now);
      }),
    );
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
    this.wallets.insert(agentId, walletAddress, "simulation", now);
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
    return this.agents.list(userId, page.limit, page.offset).map(toAgentView);
  }

  get(userId: string, agentId: string): AgentView {
    return toAgentView(requireOwnedAgent(this.database, userId, agentId));
  }

  /** Ids of all the user's agents (for lists across agents). */
  agentIdsOf(userId: string): string[] {
    return this.agents.idsOf(userId);
  }

  update(userId: string, agentId: string, patch: AgentUpdate): AgentView {
    if (Object.values(patch).every((v) => v === undefined)) throw new ValidationError(NO_UPDATE_FIELDS_MESSAGE);
    nameConflict(() =>
      inTransaction(this.database, () => {
        const row = requireOwnedAgent(this.database, userId, agentId);
        // SPEC "States and transitions": updatedAt changes on every valid update, even within the
        // same millisecond as the previous write.
        const previous = Date.parse(row.updatedAt);
        const now = new Date(Math.max(this.clock.now(), previous + 1)).toISOString();
        this.agents.update(
          agentId,
          {
            name: patch.name ?? row.name,
            tradingMode: patch.tradingMode ?? row.tradingMode,
            automatedTradingSimulation: patch.automatedTradingSimulation ?? row.automatedTradingSimulation,
            automatedTradingLive: patch.automatedTradingLive ?? row.automatedTradingLive,
          },
          now,
        );
      }),
    );
    const view = this.get(userId, agentId);
    this.logger.info("agent updated", {
      agentId,
      fields: Object.keys(patch).filter((k) => patch[k as keyof AgentUpdate] !== undefined),
    });
    return view;
  }

  /**
   * Deletes the agent. Foreign keys cascade to its wallets, balances, positions, balance history,
   * configuration, transactions and swaps (SPEC: irreversible). Refused (409) while a live swap
   * of the agent is pending or unknown: it may still land, and must land on a known agent. The
   * live swap journal is kept (no cascade): each row keeps the wallet that paid.
   */
  delete(userId: string, agentId: string): void {
    inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      const inDoubt = new LiveTradeRepository(this.database.sqlite).countUnresolvedForAgent(agentId);
      if (inDoubt > 0) throw new ConflictError(AGENT_SWAP_IN_DOUBT_MESSAGE, { unresolvedLiveSwaps: inDoubt });
      this.agents.delete(agentId);
    });
    this.logger.info("agent deleted", { agentId, userId });
  }

  // ---- trading configuration

  private overridesOf(agentId: string): Record<string, unknown> | null {
    return this.agents.configOverrides(agentId);
  }

  /** The complete configuration of an agent, defaults merged in (no ownership check: engine use). */
  configFor(agentId: string): TradingConfig {
    return resolveConfig(this.overridesOf(agentId));
  }

  getConfig(userId: string, agentId: string): TradingConfig {
    requireOwnedAgent(this.database, userId, agentId);
    return this.configFor(agentId);
  }

  /**
   * PUT /agents/:id/config: merge only the sent fields; `null` resets to defaults. Open positions
   * keep the exit rules they opened with unless `applyToOpenPositions` (src/agents/position-config.ts);
   * then each takes the new ones, recorded on it, and the count is returned.
   */
  updateConfig(
    userId: string,
    agentId: string,
    patch: unknown,
    applyToOpenPositions = false,
  ): { config: TradingConfig; appliedToOpenPositions?: number } {
    let applied: number | undefined;
    const config = inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      const result = applyConfigUpdate(this.overridesOf(agentId), patch);
      if (!result.ok) throw new ValidationError(INVALID_CONFIG_MESSAGE, result.details);
      // Sources named in this update must exist (a typo would silently trade nothing); ones stored
      // earlier stay, so a deleted key never blocks another change.
      const named = (patch as { filters?: { sources?: string[] } } | null)?.filters?.sources;
      const unknown = named ? unknownSources(this.database.sqlite, userId, result.config.filters.sources) : [];
      if (unknown.length) throw new ValidationError(INVALID_CONFIG_MESSAGE, unknown);
      if (patch === null) {
        this.agents.clearConfigOverrides(agentId);
      } else {
        this.agents.saveConfigOverrides(agentId, result.overrides, isoNow(this.clock));
      }
      if (applyToOpenPositions)
        applied = applyExitConfigToOpen(
          this.database.sqlite,
          agentId,
          exitConfigText(result.config),
          isoNow(this.clock),
        );
      return result.config;
    });
    this.logger.info("agent configuration updated", {
      agentId,
      reset: patch === null,
      ...(applied !== undefined ? { appliedToOpenPositions: applied } : {}),
    });
    return applied === undefined ? { config } : { config, appliedToOpenPositions: applied };
  }
}

export const AGENT_SWAP_IN_DOUBT_MESSAGE =
  "The agent has a live swap awaiting confirmation on chain (pending or unknown); it cannot be deleted until the swap is reconciled";

export const NO_UPDATE_FIELDS_MESSAGE =
  "At least one field must be provided: name, tradingMode, automatedTradingSimulation or automatedTradingLive";

/** SIMULATION_INITIAL_SOL (parsed as a number by the config schema) as exact decimal text. */
export const initialSolText = (v: number): string => new Big(String(v)).toFixed();

/** The unique index on (user, lower(name)) refused the write: the spec's 409 (PRODUCT.md §7). */
function nameConflict(write: () => void): void {
  try {
    write();
  } catch (err) {
    if (String(err).includes(AGENT_NAME_INDEX) || String(err).includes("agents.user_id, lower(name)")) {
      throw new ConflictError("Agent name already exists");
    }
    throw err;
  }
}
