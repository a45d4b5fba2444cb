import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import { requireOwnedAgent } from "../db/repositories/agents.ts";
import { ConflictError, NotFoundError, ServiceNotConfiguredError, ValidationError } from "../errors.ts";
import { readBalance, setBalance } from "../ledgers/balance-ledger.ts";
import { recordBalanceSnapshot } from "../ledgers/balance-snapshots.ts";
import type { Logger } from "../logger.ts";
import { SOL_DECIMALS, SOL_MINT } from "../money.ts";
import type { LiveWalletRegistry } from "./live-wallet-registry.ts";
import { SIMULATION_ADDRESS_PATTERN } from "./simulation-address.ts";

// Wallets of agents (SPEC "Wallet endpoints", PRODUCT.md §3, §5). An agent has at most one wallet
// per type; a wallet belongs to one agent at a time (unique index on the address); simulation
// wallets are virtual (`sim_...`), live ones must be loaded from WALLET_N.

export type WalletType = "simulation" | "live";

export interface AgentWalletView {
  walletAddress: string;
  walletType: WalletType;
  isAvailable: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AvailableWalletView {
  walletAddress: string;
  isAssigned: boolean;
}

export interface UserWalletView extends AgentWalletView {
  agentId: string;
  agentName: string;
}

/**
 * The live deposit check (src/wallets/live-balances.ts: compare on-chain balances with the
 * recorded ones, record the deposit). Absent when SOLANA_RPC_URL is empty; live check-deposits
 * then answers 503 SERVICE_NOT_CONFIGURED.
 */
export interface LiveDepositChecker {
  checkDeposits(input: {
    agentId: string;
    walletAddress: string;
  }): Promise<{ depositsFound: number; newBalance: string }>;
}

interface WalletRow {
  id: string;
  agent_id: string;
  wallet_address: string;
  wallet_type: WalletType;
  created_at: string;
  updated_at: string;
}

/**
 * What wallet assignment and reset need from the agents' side (AgentService implements it): the
 * initial simulation SOL and the seeding of a fresh simulation wallet. An interface, so wallets/
 * does not import agents/ (agents → wallets → ledgers; docs/decisions.md "Data layer").
 */
export interface SimulationWalletSeeder {
  readonly initialSol: string;
  seedSimulationWallet(agentId: string, walletAddress: string, now: string): void;
  seedInitialSol(agentId: string, walletAddress: string, now: string, reason: "initial" | "reset"): void;
}

/** PRODUCT.md §5: a disabled source answers 503 naming the variable to set. */
export const LIVE_DEPOSITS_NOT_CONFIGURED = "Deposit checks for live wallets need the Solana RPC: set SOLANA_RPC_URL";

export const LIVE_WALLET_NOT_LOADED_MESSAGE =
  "Wallet is not loaded from environment variables (WALLET_1, WALLET_2, ...); live wallets must be configured there";

export class WalletService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly registry: LiveWalletRegistry,
    private readonly agents: SimulationWalletSeeder,
    private readonly depositChecker?: LiveDepositChecker,
  ) {}

  private get sqlite() {
    return this.database.sqlite;
  }

  private view(r: WalletRow): AgentWalletView {
    return {
      walletAddress: r.wallet_address,
      walletType: r.wallet_type,
      // Simulation wallets are virtual and always usable; a live one only while its WALLET_N is loaded.
      isAvailable: r.wallet_type === "simulation" ? true : this.registry.has(r.wallet_address),
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  }

  private walletsOfAgent(agentId: string): WalletRow[] {
    return this.sqlite
      .query<WalletRow, [string]>("SELECT * FROM agent_wallets WHERE agent_id = ? ORDER BY wallet_type DESC")
      .all(agentId);
  }

  /** The agent's wallet of a type (the engine trades with the wallet of the agent's tradingMode). */
  walletOf(agentId: string, type: WalletType): string | null {
    return (
      this.sqlite
        .query<{ wallet_address: string }, [string, string]>(
          "SELECT wallet_address FROM agent_wallets WHERE agent_id = ? AND wallet_type = ?",
        )
        .get(agentId, type)?.wallet_address ?? null
    );
  }

  /** GET /wallets/agent/:agentId. */
  forAgent(
    userId: string,
    agentId: string,
  ): { agentWallets: AgentWalletView[]; availableWallets: AvailableWalletView[] } {
    requireOwnedAgent(this.database, userId, agentId);
    const agentWallets = this.walletsOfAgent(agentId).map((r) => this.view(r));
    const holders = new Map(
      this.sqlite
        .query<{ wallet_address: string; agent_id: string }, []>(
          "SELECT wallet_address, agent_id FROM agent_wallets WHERE wallet_type = 'live'",
        )
        .all()
        .map((r) => [r.wallet_address, r.agent_id]),
    );
    // Env wallets this agent holds or could take: one held by another agent is not "available".
    const availableWallets = this.registry
      .addresses()
      .filter((a) => !holders.has(a) || holders.get(a) === agentId)
      .map((a) => ({ walletAddress: a, isAssigned: holders.get(a) === agentId }));
    return { agentWallets, availableWallets };
  }

  /** GET /wallets: every wallet of the user's agents, newest assignment first. */
  listForUser(userId: string, page: { limit: number; offset: number }): UserWalletView[] {
    const rows = this.sqlite
      .query<WalletRow & { agent_name: string }, [string, number, number]>(
        `SELECT w.*, a.name AS agent_name FROM agent_wallets w JOIN agents a ON a.id = w.agent_id
          WHERE a.user_id = ? ORDER BY w.created_at DESC, w.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(userId, page.limit, page.offset);
    return rows.map((r) => ({ agentId: r.agent_id, agentName: r.agent_name, ...this.view(r) }));
  }

  /**
   * POST /wallets/assign. The new wallet replaces the agent's wallet of that type, unless the old
   * one has open positions (409). A new simulation wallet starts with SIMULATION_INITIAL_SOL; the
   * replaced wallet's balance rows go (its transactions and swaps stay).
   */
  assign(
    userId: string,
    input: { agentId: string; walletAddress: string; walletType: WalletType },
  ): { changed: boolean } {
    const { agentId, walletAddress, walletType } = input;
    if (walletType === "live" && !this.registry.has(walletAddress))
      throw new ValidationError(LIVE_WALLET_NOT_LOADED_MESSAGE);
    if (walletType === "simulation" && !SIMULATION_ADDRESS_PATTERN.test(walletAddress)) {
      throw new ValidationError("Simulation wallet addresses must be sim_ followed by base58 characters");
    }
    const changed = inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      const holder = this.sqlite
        .query<WalletRow, [string]>("SELECT * FROM agent_wallets WHERE wallet_address = ?")
        .get(walletAddress);
      if (holder && holder.agent_id !== agentId) throw new ConflictError("Wallet is already assigned to another agent");
      if (holder) return false; // already this agent's wallet of this type
      const now = isoNow(this.clock);
      const current = this.sqlite
        .query<WalletRow, [string, string]>("SELECT * FROM agent_wallets WHERE agent_id = ? AND wallet_type = ?")
        .get(agentId, walletType);
      if (current) {
        const open = this.sqlite
          .query<{ n: number }, [string, string]>(
            "SELECT COUNT(*) AS n FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'",
          )
          .get(agentId, current.wallet_address);
        if ((open?.n ?? 0) > 0) {
          throw new ConflictError(`Cannot reassign the ${walletType} wallet while it has open positions`, {
            openPositions: open?.n ?? 0,
          });
        }
        this.sqlite
          .query("DELETE FROM agent_balances WHERE agent_id = ? AND wallet_address = ?")
          .run(agentId, current.wallet_address);
        this.sqlite
          .query("UPDATE agent_wallets SET wallet_address = ?, created_at = ?, updated_at = ? WHERE id = ?")
          .run(walletAddress, now, now, current.id);
        if (walletType === "simulation") this.agents.seedInitialSol(agentId, walletAddress, now, "initial");
      } else if (walletType === "simulation") {
        this.agents.seedSimulationWallet(agentId, walletAddress, now);
      } else {
        this.sqlite
          .query(
            `INSERT INTO agent_wallets (id, agent_id, wallet_address, wallet_type, created_at, updated_at)
             VALUES (?, ?, ?, 'live', ?, ?)`,
          )
          .run(crypto.randomUUID(), agentId, walletAddress, now, now);
      }
      return true;
    });
    if (changed)
      this.logger.info("wallet assigned", {
        agentId,
        walletAddress,
        walletType,
        variable: this.registry.variableOf(walletAddress),
      });
    return { changed };
  }

  /** The user's wallet row by address, or 404 "Wallet not found". */
  private ownedWallet(userId: string, walletAddress: string): WalletRow {
    const row = this.sqlite
      .query<WalletRow, [string, string]>(
        "SELECT w.* FROM agent_wallets w JOIN agents a ON a.id = w.agent_id WHERE w.wallet_address = ? AND a.user_id = ?",
      )
      .get(walletAddress, userId);
    if (!row) throw new NotFoundError("Wallet not found");
    return row;
  }

  /**
   * POST /wallets/:walletAddress/reset (PRODUCT.md §3): SOL back to SIMULATION_INITIAL_SOL, token
   * balances gone, the wallet's open positions removed; transactions and swaps are kept.
   */
  reset(userId: string, walletAddress: string): void {
    const wallet = this.ownedWallet(userId, walletAddress);
    if (wallet.wallet_type !== "simulation") throw new ValidationError("Live wallets cannot be reset");
    const now = isoNow(this.clock);
    const removed = inTransaction(this.database, () => {
      const positions = this.sqlite
        .query("DELETE FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'")
        .run(wallet.agent_id, walletAddress).changes;
      this.sqlite
        .query("DELETE FROM agent_balances WHERE agent_id = ? AND wallet_address = ? AND token_address <> ?")
        .run(wallet.agent_id, walletAddress, SOL_MINT);
      const key = { agentId: wallet.agent_id, walletAddress, tokenAddress: SOL_MINT };
      setBalance(this.database, key, this.agents.initialSol, { now, tokenSymbol: "SOL", decimals: SOL_DECIMALS });
      recordBalanceSnapshot(this.database, {
        agentId: wallet.agent_id,
        walletAddress,
        solBalance: this.agents.initialSol,
        totalValueSol: this.agents.initialSol,
        totalValueUsd: null,
        reason: "reset",
        now,
      });
      this.sqlite.query("UPDATE agent_wallets SET updated_at = ? WHERE id = ?").run(now, wallet.id);
      return positions;
    });
    this.logger.info("simulation wallet reset", {
      agentId: wallet.agent_id,
      walletAddress,
      openPositionsRemoved: removed,
    });
  }

  /** POST /wallets/:walletAddress/check-deposits. Simulation wallets never receive deposits. */
  async checkDeposits(userId: string, walletAddress: string): Promise<{ depositsFound: number; newBalance: string }> {
    const wallet = this.ownedWallet(userId, walletAddress);
    if (wallet.wallet_type === "live") {
      if (!this.depositChecker) throw new ServiceNotConfiguredError(LIVE_DEPOSITS_NOT_CONFIGURED);
      return this.depositChecker.checkDeposits({ agentId: wallet.agent_id, walletAddress });
    }
    const balance = readBalance(this.database, { agentId: wallet.agent_id, walletAddress, tokenAddress: SOL_MINT });
    return { depositsFound: 0, newBalance: balance.eq(0) ? "0" : balance.toFixed() };
  }
}
