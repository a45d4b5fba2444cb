import type { Database } from "bun:sqlite";

// Reads of the positions table for the engine, the monitor and the close endpoint. Raw prepared
// statements: the monitor reads every open position on every tick.

export interface PositionRecord {
  id: string;
  agentId: string;
  userId: string;
  walletAddress: string;
  tradingMode: "simulation" | "live";
  tokenAddress: string;
  tokenSymbol: string;
  tokenDecimals: number;
  signalId: number | null;
  status: "open" | "closed";
  entryPriceSol: string;
  entryPriceUsd: string;
  purchaseAmount: string;
  costSol: string;
  costUsd: string;
  remainingAmount: string;
  peakPriceSol: string;
  lastPriceSol: string | null;
  lastPriceUsd: string | null;
  levelsHit: number;
  realizedProfitSol: string;
  realizedProfitUsd: string;
  moonBagActivated: boolean;
  moonBagAmount: string | null;
  dcaOrders: number;
  purchaseTransactionId: string;
  purchaseTransactionHash: string;
  /** SOL swapped by the opening buy (fees excluded): the base of DCA order sizes. */
  openingSolAmount: string;
  configOverrides: string | null;
  openedAt: string;
  closedAt: string | null;
  closeReason: string | null;
  createdAt: string;
  updatedAt: string;
}

const SELECT = `SELECT p.id, p.agent_id AS agentId, a.user_id AS userId, p.wallet_address AS walletAddress,
  p.trading_mode AS tradingMode, p.token_address AS tokenAddress, p.token_symbol AS tokenSymbol,
  p.token_decimals AS tokenDecimals, p.signal_id AS signalId, p.status, p.entry_price_sol AS entryPriceSol,
  p.entry_price_usd AS entryPriceUsd, p.purchase_amount AS purchaseAmount, p.cost_sol AS costSol,
  p.cost_usd AS costUsd, p.remaining_amount AS remainingAmount, p.peak_price_sol AS peakPriceSol,
  p.last_price_sol AS lastPriceSol, p.last_price_usd AS lastPriceUsd, p.levels_hit AS levelsHit,
  p.realized_profit_sol AS realizedProfitSol, p.realized_profit_usd AS realizedProfitUsd,
  p.moon_bag_activated AS moonBagActivated, p.moon_bag_amount AS moonBagAmount, p.dca_orders AS dcaOrders,
  p.purchase_transaction_id AS purchaseTransactionId, p.purchase_transaction_hash AS purchaseTransactionHash,
  COALESCE(t.input_amount, '0') AS openingSolAmount, c.overrides AS configOverrides,
  p.opened_at AS openedAt, p.closed_at AS closedAt, p.close_reason AS closeReason,
  p.created_at AS createdAt, p.updated_at AS updatedAt
  FROM positions p
  JOIN agents a ON a.id = p.agent_id
  LEFT JOIN agent_transactions t ON t.id = p.purchase_transaction_id
  LEFT JOIN agent_configs c ON c.agent_id = p.agent_id`;

// Rows are fresh objects from bun:sqlite: the flag is fixed in place (allOpen maps every open
// position on every monitor tick; a copy per row cost more than the flag).
const fix = (r: PositionRecord | null): PositionRecord | null => {
  if (r) r.moonBagActivated = Boolean(r.moonBagActivated);
  return r;
};

export class PositionStore {
  constructor(private readonly sqlite: Database) {}

  byId(id: string): PositionRecord | null {
    return fix(this.sqlite.query<PositionRecord, [string]>(`${SELECT} WHERE p.id = ?`).get(id));
  }

  /** An open position of the user's agent (404 material when null). */
  openOwned(userId: string, positionId: string, agentId?: string): PositionRecord | null {
    const r = this.byId(positionId);
    if (r?.status !== "open" || r.userId !== userId) return null;
    if (agentId !== undefined && r.agentId !== agentId) return null;
    return r;
  }

  openForAgentToken(agentId: string, tokenAddress: string): PositionRecord | null {
    return fix(
      this.sqlite
        .query<PositionRecord, [string, string]>(
          `${SELECT} WHERE p.agent_id = ? AND p.token_address = ? AND p.status = 'open'`,
        )
        .get(agentId, tokenAddress),
    );
  }

  /** Whether the agent holds an open position in the token (eligibility): the partial unique index alone answers. */
  hasOpen(agentId: string, tokenAddress: string): boolean {
    return (
      this.sqlite
        .query<{ one: number }, [string, string]>(
          "SELECT 1 AS one FROM positions WHERE agent_id = ? AND token_address = ? AND status = 'open' LIMIT 1",
        )
        .get(agentId, tokenAddress) !== null
    );
  }

  allOpen(): PositionRecord[] {
    return this.sqlite
      .query<PositionRecord, []>(`${SELECT} WHERE p.status = 'open' ORDER BY p.opened_at`)
      .all()
      .map((r) => fix(r) as PositionRecord);
  }

  openForAgents(agentIds: readonly string[], walletAddress?: string): PositionRecord[] {
    if (agentIds.length === 0) return [];
    const marks = agentIds.map(() => "?").join(", ");
    const params = [...agentIds];
    let where = `p.status = 'open' AND p.agent_id IN (${marks})`;
    if (walletAddress !== undefined) {
      where += " AND p.wallet_address = ?";
      params.push(walletAddress);
    }
    return this.sqlite
      .query<PositionRecord, string[]>(`${SELECT} WHERE ${where} ORDER BY p.opened_at DESC, p.rowid DESC`)
      .all(...params)
      .map((r) => fix(r) as PositionRecord);
  }

  /** Open token mints per agent, for the "one position per token" eligibility rule. */
  openTokens(agentId: string): Set<string> {
    return new Set(
      this.sqlite
        .query<{ t: string }, [string]>(
          "SELECT token_address AS t FROM positions WHERE agent_id = ? AND status = 'open'",
        )
        .all(agentId)
        .map((r) => r.t),
    );
  }

  /** Time of the agent's last trade (any side), for timing.minTimeBetweenTradesSeconds. */
  lastTradeAt(agentId: string): number | null {
    const r = this.sqlite
      .query<{ t: string | null }, [string]>(
        "SELECT max(transaction_time) AS t FROM agent_transactions WHERE agent_id = ? AND status != 'failed'",
      )
      .get(agentId);
    return r?.t ? Date.parse(r.t) : null;
  }

  countOpenByMode(): Partial<Record<"simulation" | "live", number>> {
    const out: Partial<Record<"simulation" | "live", number>> = {};
    for (const r of this.sqlite
      .query<{ m: "simulation" | "live"; n: number }, []>(
        "SELECT trading_mode AS m, count(*) AS n FROM positions WHERE status = 'open' GROUP BY trading_mode",
      )
      .all())
      out[r.m] = r.n;
    return out;
  }
}
