import type { Database } from "bun:sqlite";
import { requireOwnedAgent } from "../agents/ownership.ts";
import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { Big, SOL_MINT } from "../money.ts";
import { canonicalAmount } from "./balance-ledger.ts";
import type { TokenPriceLookup } from "./token-price-lookup.ts";

// Agent balances (SPEC "Agent balance", "Agent balance endpoints"). The HTTP CRUD here edits the
// same rows the balance ledger credits and debits; amounts stay exact decimal text.

export interface BalanceView {
  id: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  balance: string;
  lastUpdated: string;
}

export interface BalanceListItem extends BalanceView {
  /** Current price in SOL; 1 for SOL; null when no price is known. */
  priceSol: number | null;
}

interface BalanceRow {
  id: string;
  agent_id: string;
  wallet_address: string;
  token_address: string;
  token_symbol: string;
  balance: string;
  last_updated: string;
}

const view = (r: BalanceRow): BalanceView => ({
  id: r.id,
  agentId: r.agent_id,
  walletAddress: r.wallet_address,
  tokenAddress: r.token_address,
  tokenSymbol: r.token_symbol,
  balance: r.balance,
  lastUpdated: r.last_updated,
});

export class AgentBalanceService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly prices: TokenPriceLookup,
  ) {}

  private get sqlite(): Database {
    return this.database.sqlite;
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private owned(userId: string, id: string): BalanceRow {
    const row = this.sqlite
      .query<BalanceRow, [string, string]>(
        "SELECT b.* FROM agent_balances b JOIN agents a ON a.id = b.agent_id WHERE b.id = ? AND a.user_id = ?",
      )
      .get(id, userId);
    if (!row) throw new NotFoundError("Balance not found");
    return row;
  }

  /** GET /agent-balances: the agent's balances (SOL first), each with priceSol. */
  async list(
    userId: string,
    q: { agentId: string; walletAddress?: string; limit: number; offset: number },
  ): Promise<BalanceListItem[]> {
    requireOwnedAgent(this.database, userId, q.agentId);
    const rows = this.sqlite
      .query<BalanceRow, [string, string | null, string | null, number, number]>(
        `SELECT * FROM agent_balances WHERE agent_id = ? AND (? IS NULL OR wallet_address = ?)
          ORDER BY (token_address = '${SOL_MINT}') DESC, created_at ASC, rowid ASC LIMIT ? OFFSET ?`,
      )
      .all(q.agentId, q.walletAddress ?? null, q.walletAddress ?? null, q.limit, q.offset);
    const mints = [...new Set(rows.map((r) => r.token_address).filter((m) => m !== SOL_MINT))];
    let prices = new Map<string, number>();
    if (mints.length > 0) {
      try {
        prices = await this.prices.pricesInSol(mints);
      } catch (err) {
        // A price provider failure must not hide the balances themselves: prices show as null.
        this.logger.warn("token prices unavailable for balance list", {
          agentId: q.agentId,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return rows.map((r) => ({
      ...view(r),
      priceSol: r.token_address === SOL_MINT ? 1 : (prices.get(r.token_address) ?? null),
    }));
  }

  get(userId: string, id: string): BalanceView {
    return view(this.owned(userId, id));
  }

  create(
    userId: string,
    input: { agentId: string; walletAddress: string; tokenAddress: string; tokenSymbol: string; balance: string },
  ): BalanceView {
    requireOwnedAgent(this.database, userId, input.agentId);
    const now = this.nowIso();
    const id = crypto.randomUUID();
    try {
      this.sqlite
        .query(
          `INSERT INTO agent_balances (id, agent_id, wallet_address, token_address, token_symbol, balance, decimals, last_updated, created_at)
           VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        )
        .run(
          id,
          input.agentId,
          input.walletAddress,
          input.tokenAddress,
          input.tokenSymbol,
          canonicalAmount(new Big(input.balance)),
          now,
          now,
        );
    } catch (err) {
      if (String(err).includes("UNIQUE"))
        throw new ConflictError("A balance for this agent, wallet and token already exists");
      throw err;
    }
    this.logger.info("agent balance created", {
      agentId: input.agentId,
      balanceId: id,
      tokenAddress: input.tokenAddress,
    });
    return this.get(userId, id);
  }

  update(userId: string, id: string, patch: { balance?: string; tokenSymbol?: string }): BalanceView {
    if (patch.balance === undefined && patch.tokenSymbol === undefined) {
      throw new ValidationError("At least one field must be provided: balance or tokenSymbol");
    }
    const row = this.owned(userId, id);
    this.sqlite
      .query("UPDATE agent_balances SET balance = ?, token_symbol = ?, last_updated = ? WHERE id = ?")
      .run(
        patch.balance === undefined ? row.balance : canonicalAmount(new Big(patch.balance)),
        patch.tokenSymbol ?? row.token_symbol,
        this.nowIso(),
        id,
      );
    this.logger.info("agent balance updated", { agentId: row.agent_id, balanceId: id });
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    const row = this.owned(userId, id);
    this.sqlite.query("DELETE FROM agent_balances WHERE id = ?").run(id);
    this.logger.info("agent balance deleted", { agentId: row.agent_id, balanceId: id });
  }
}
