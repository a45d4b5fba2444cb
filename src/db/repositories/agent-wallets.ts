import type { Database } from "bun:sqlite";
import type { agentWallets } from "../schema/agents.ts";

// agent_wallets: the one module that reads and writes the table (assignment, reset, listings).
// An agent has at most one wallet per type; a wallet belongs to one agent (unique address index).

export type WalletRecord = typeof agentWallets.$inferSelect;
export type WalletType = WalletRecord["walletType"];

const columns = (t = "") =>
  `${t}id AS id, ${t}agent_id AS agentId, ${t}wallet_address AS walletAddress, ${t}wallet_type AS walletType,
   ${t}created_at AS createdAt, ${t}updated_at AS updatedAt`;
const COLUMNS = columns();

export class AgentWalletRepository {
  constructor(private readonly sqlite: Database) {}

  insert(agentId: string, walletAddress: string, walletType: WalletType, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO agent_wallets (id, agent_id, wallet_address, wallet_type, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(crypto.randomUUID(), agentId, walletAddress, walletType, now, now);
  }

  /** The agent's wallets, simulation first. */
  ofAgent(agentId: string): WalletRecord[] {
    return this.sqlite
      .query<WalletRecord, [string]>(
        `SELECT ${COLUMNS} FROM agent_wallets WHERE agent_id = ? ORDER BY wallet_type DESC`,
      )
      .all(agentId);
  }

  ofAgentAndType(agentId: string, walletType: WalletType): WalletRecord | null {
    return this.sqlite
      .query<WalletRecord, [string, string]>(
        `SELECT ${COLUMNS} FROM agent_wallets WHERE agent_id = ? AND wallet_type = ?`,
      )
      .get(agentId, walletType);
  }

  byAddress(walletAddress: string): WalletRecord | null {
    return this.sqlite
      .query<WalletRecord, [string]>(`SELECT ${COLUMNS} FROM agent_wallets WHERE wallet_address = ?`)
      .get(walletAddress);
  }

  /** The wallet by address if its agent belongs to the user. */
  ownedByAddress(userId: string, walletAddress: string): WalletRecord | null {
    return this.sqlite
      .query<WalletRecord, [string, string]>(
        `SELECT ${columns("w.")} FROM agent_wallets w JOIN agents a ON a.id = w.agent_id
          WHERE w.wallet_address = ? AND a.user_id = ?`,
      )
      .get(walletAddress, userId);
  }

  /** Live wallet address → the agent holding it. */
  liveHolders(): Map<string, string> {
    return new Map(
      this.sqlite
        .query<{ a: string; agentId: string }, []>(
          "SELECT wallet_address AS a, agent_id AS agentId FROM agent_wallets WHERE wallet_type = 'live'",
        )
        .all()
        .map((r) => [r.a, r.agentId]),
    );
  }

  /** Every wallet of the user's agents with the agent's name, newest assignment first. */
  listForUser(userId: string, limit: number, offset: number): Array<WalletRecord & { agentName: string }> {
    return this.sqlite
      .query<WalletRecord & { agentName: string }, [string, number, number]>(
        `SELECT ${columns("w.")}, a.name AS agentName FROM agent_wallets w JOIN agents a ON a.id = w.agent_id
          WHERE a.user_id = ? ORDER BY w.created_at DESC, w.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(userId, limit, offset);
  }

  /** Assignment over an existing wallet of that type: the new address starts fresh. */
  replaceAddress(id: string, walletAddress: string, now: string): void {
    this.sqlite
      .query("UPDATE agent_wallets SET wallet_address = ?, created_at = ?, updated_at = ? WHERE id = ?")
      .run(walletAddress, now, now, id);
  }

  touch(id: string, now: string): void {
    this.sqlite.query("UPDATE agent_wallets SET updated_at = ? WHERE id = ?").run(now, id);
  }
}
