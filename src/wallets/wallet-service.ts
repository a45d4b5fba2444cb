import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import { AgentWalletRepository, type WalletRecord } from "../db/repositories/agent-wallets.ts";
import { requireOwnedAgent } from "../db/repositories/agents.ts";
import { deleteWalletBalances } from "../db/repositories/balances.ts";
import { LiveTradeRepository } from "../db/repositories/live-trades.ts";
import { PositionRepository } from "../db/repositories/positions.ts";
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
const LIVE_DEPOSITS_NOT_CONFIGURED = "Deposit checks for live wallets need the Solana RPC: set SOLANA_RPC_URL";

export const LIVE_WALLET_NOT_LOADED_MESSAGE =
  "Wallet is not loaded from environment variables (WALLET_1, WALLET_2, ...); live wallets must be configured there";

/** 409 while a live swap of the agent or from the wallet may still land or has landed unseen. */
export const WALLET_SWAP_IN_DOUBT_MESSAGE =
  "A live swap of this agent or wallet is awaiting confirmation on chain (pending or unknown); the wallet cannot be reassigned or reset until it is reconciled";

export class WalletService {
  private readonly wallets: AgentWalletRepository;
  private readonly positions: PositionRepository;
  private readonly liveTrades: LiveTradeRepository;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly registry: LiveWalletRegistry,
    private readonly agents: SimulationWalletSeeder,
    private readonly depositChecker?: LiveDepositChecker,
  ) {
    this.wallets = new AgentWalletRepository(database.sqlite);
    this.positions = new PositionRepository(database.sqlite);
    this.liveTrades = new LiveTradeRepository(database.sqlite);
  }

  /**
   * A swap whose outcome is not recorded must keep its agent and wallet together: moved or reset,
   * a landing swap would be booked to the wrong wallet or to none.
   */
  private assertNoSwapInDoubt(agentId: string, walletAddresses: Array<string | undefined>): void {
    const agentOpen = this.liveTrades.countUnresolvedForAgent(agentId);
    const walletOpen = walletAddresses.some((w) => w !== undefined && this.liveTrades.hasUnresolvedForWallet(w));
    if (agentOpen > 0 || walletOpen) throw new ConflictError(WALLET_SWAP_IN_DOUBT_MESSAGE);
  }

  private view(r: WalletRecord): AgentWalletView {
    return {
      walletAddress: r.walletAddress,
      walletType: r.walletType,
      // Simulation wallets are virtual and always usable; a live one only while its WALLET_N is loaded.
      isAvailable: r.walletType === "simulation" ? true : this.registry.has(r.walletAddress),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  /** The agent's wallet of a type (the engine trades with the wallet of the agent's tradingMode). */
  walletOf(agentId: string, type: WalletType): string | null {
    return this.wallets.ofAgentAndType(agentId, type)?.walletAddress ?? null;
  }

  /** GET /wallets/agent/:agentId. */
  forAgent(
    userId: string,
    agentId: string,
  ): { agentWallets: AgentWalletView[]; availableWallets: AvailableWalletView[] } {
    requireOwnedAgent(this.database, userId, agentId);
    const agentWallets = this.wallets.ofAgent(agentId).map((r) => this.view(r));
    const holders = this.wallets.liveHolders();
    // Env wallets this agent holds or could take: one held by another agent is not "available".
    const availableWallets = this.registry
      .addresses()
      .filter((a) => !holders.has(a) || holders.get(a) === agentId)
      .map((a) => ({ walletAddress: a, isAssigned: holders.get(a) === agentId }));
    return { agentWallets, availableWallets };
  }

  /** GET /wallets: every wallet of the user's agents, newest assignment first. */
  listForUser(userId: string, page: { limit: number; offset: number }): UserWalletView[] {
    const rows = this.wallets.listForUser(userId, page.limit, page.offset);
    return rows.map((r) => ({ agentId: r.agentId, agentName: r.agentName, ...this.view(r) }));
  }

  /**
   * POST /wallets/assign. The new wallet replaces the agent's wallet of that type, unless the old
   * one has open positions (409). A new simulation wallet starts with SIMULATION_INITIAL_SOL; the
   * replaced wallet's balance rows go (its transactions and swaps stay).
   */
  assign(
    userId: string,
    input: { agentId: string; walletAddress: string; walletType: WalletType },
  ): { changed: boolean; replaced: string | null } {
    const { agentId, walletAddress, walletType } = input;
    let replaced: string | null = null;
    if (walletType === "live" && !this.registry.has(walletAddress))
      throw new ValidationError(LIVE_WALLET_NOT_LOADED_MESSAGE);
    if (walletType === "simulation" && !SIMULATION_ADDRESS_PATTERN.test(walletAddress)) {
      throw new ValidationError("Simulation wallet addresses must be sim_ followed by base58 characters");
    }
    const changed = inTransaction(this.database, () => {
      requireOwnedAgent(this.database, userId, agentId);
      const holder = this.wallets.byAddress(walletAddress);
      if (holder && holder.agentId !== agentId) throw new ConflictError("Wallet is already assigned to another agent");
      if (holder) return false; // already this agent's wallet of this type
      const now = isoNow(this.clock);
      const current = this.wallets.ofAgentAndType(agentId, walletType);
      this.assertNoSwapInDoubt(agentId, [current?.walletAddress, walletAddress]);
      if (current) {
        const open = this.positions.countOpenInWallet(agentId, current.walletAddress);
        if (open > 0) {
          throw new ConflictError(`Cannot reassign the ${walletType} wallet while it has open positions`, {
            openPositions: open,
          });
        }
        deleteWalletBalances(this.database, agentId, current.walletAddress);
        replaced = current.walletAddress;
        this.wallets.replaceAddress(current.id, walletAddress, now);
        if (walletType === "simulation") this.agents.seedInitialSol(agentId, walletAddress, now, "initial");
      } else if (walletType === "simulation") {
        this.agents.seedSimulationWallet(agentId, walletAddress, now);
      } else {
        this.wallets.insert(agentId, walletAddress, "live", now);
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
    return { changed, replaced };
  }

  /** The user's wallet row by address, or 404 "Wallet not found". */
  private ownedWallet(userId: string, walletAddress: string): WalletRecord {
    const row = this.wallets.ownedByAddress(userId, walletAddress);
    if (!row) throw new NotFoundError("Wallet not found");
    return row;
  }

  /**
   * POST /wallets/:walletAddress/reset (PRODUCT.md §3): SOL back to SIMULATION_INITIAL_SOL, token
   * balances gone, the wallet's open positions removed; transactions and swaps are kept.
   */
  reset(userId: string, walletAddress: string): void {
    const wallet = this.ownedWallet(userId, walletAddress);
    if (wallet.walletType !== "simulation") throw new ValidationError("Live wallets cannot be reset");
    const now = isoNow(this.clock);
    const removed = inTransaction(this.database, () => {
      this.assertNoSwapInDoubt(wallet.agentId, [walletAddress]);
      const positions = this.positions.deleteOpenInWallet(wallet.agentId, walletAddress);
      deleteWalletBalances(this.database, wallet.agentId, walletAddress, SOL_MINT);
      const key = { agentId: wallet.agentId, walletAddress, tokenAddress: SOL_MINT };
      setBalance(this.database, key, this.agents.initialSol, { now, tokenSymbol: "SOL", decimals: SOL_DECIMALS });
      recordBalanceSnapshot(this.database, {
        agentId: wallet.agentId,
        walletAddress,
        solBalance: this.agents.initialSol,
        totalValueSol: this.agents.initialSol,
        totalValueUsd: null,
        reason: "reset",
        now,
      });
      this.wallets.touch(wallet.id, now);
      return positions;
    });
    this.logger.info("simulation wallet reset", {
      agentId: wallet.agentId,
      walletAddress,
      openPositionsRemoved: removed,
    });
  }

  /** POST /wallets/:walletAddress/check-deposits. Simulation wallets never receive deposits. */
  async checkDeposits(userId: string, walletAddress: string): Promise<{ depositsFound: number; newBalance: string }> {
    const wallet = this.ownedWallet(userId, walletAddress);
    if (wallet.walletType === "live") {
      if (!this.depositChecker) throw new ServiceNotConfiguredError(LIVE_DEPOSITS_NOT_CONFIGURED);
      return this.depositChecker.checkDeposits({ agentId: wallet.agentId, walletAddress });
    }
    const balance = readBalance(this.database, { agentId: wallet.agentId, walletAddress, tokenAddress: SOL_MINT });
    return { depositsFound: 0, newBalance: balance.eq(0) ? "0" : balance.toFixed() };
  }
}
