import type { Database } from "bun:sqlite";
import type { positions } from "../schema/trading.ts";

// The positions table: the ONE module that reads and writes it (the engine's settlements, the
// monitor's price updates, the position views), but for position-exit-config.ts (a config edit
// applied to open positions). Raw prepared statements: the monitor reads every open position and
// writes its prices on every tick.

type PositionColumns = typeof positions.$inferSelect;

/** A position with what the engine needs beside its own columns (owner, config). */
export type PositionRecord = Omit<PositionColumns, "tradingMode"> & {
  tradingMode: "simulation" | "live";
  userId: string;
  configOverrides: string | null;
};

/** The row a signal buy inserts (status open; remaining, peak and last price start at the entry). */
export type NewOpenPosition = Pick<
  PositionColumns,
  | "id"
  | "agentId"
  | "walletAddress"
  | "tokenAddress"
  | "tokenSymbol"
  | "tokenDecimals"
  | "entryPriceSol"
  | "entryPriceUsd"
  | "purchaseAmount"
  | "costSol"
  | "costUsd"
  | "openingSol"
  | "heldCostSol"
  | "purchaseTransactionId"
  | "purchaseTransactionHash"
> & { tradingMode: "simulation" | "live"; signalId: number; exitConfig: string | null };

export type DcaFields = Pick<
  PositionColumns,
  | "entryPriceSol"
  | "entryPriceUsd"
  | "purchaseAmount"
  | "remainingAmount"
  | "costSol"
  | "costUsd"
  | "heldCostSol"
  | "dcaOrders"
>;

export type TakeProfitFields = Pick<
  PositionColumns,
  | "remainingAmount"
  | "heldCostSol"
  | "levelsHit"
  | "realizedProfitSol"
  | "realizedProfitUsd"
  | "moonBagActivated"
  | "moonBagAmount"
>;

export type CloseFields = Pick<PositionColumns, "remainingAmount" | "closeReason" | "lastPriceSol">;

/**
 * What the monitor reads of every open position on every tick: the rules' inputs and what routes
 * its action. The owner and configuration are read per agent (MonitoredAgent), not per row; the
 * opening SOL amount (DCA sizes) only for the positions decided exactly (openingSolAmount()).
 */
export type MonitorRow = Pick<
  PositionRecord,
  | "id"
  | "agentId"
  | "tradingMode"
  | "tokenAddress"
  | "tokenDecimals"
  | "entryPriceSol"
  | "remainingAmount"
  | "peakPriceSol"
  | "levelsHit"
  | "moonBagActivated"
  | "dcaOrders"
  | "openedAt"
  | "exitConfig"
> & {
  /** SQLite's rowid: the price update finds the row without the id index (recordPrices). */
  rowid: number;
};

/** An agent with open positions: its owner and stored configuration overrides. */
export interface MonitoredAgent {
  agentId: string;
  userId: string;
  configOverrides: string | null;
}

/** Current and peak price of an open position, as the monitor stores them each tick. */
export type PriceUpdate = Pick<PositionColumns, "id" | "lastPriceSol" | "lastPriceUsd" | "peakPriceSol"> & {
  rowid: number;
};

const SELECT = `SELECT p.id, p.agent_id AS agentId, a.user_id AS userId, p.wallet_address AS walletAddress,
  p.trading_mode AS tradingMode, p.token_address AS tokenAddress, p.token_symbol AS tokenSymbol,
  p.token_decimals AS tokenDecimals, p.signal_id AS signalId, p.status, p.entry_price_sol AS entryPriceSol,
  p.entry_price_usd AS entryPriceUsd, p.purchase_amount AS purchaseAmount, p.cost_sol AS costSol,
  p.cost_usd AS costUsd, p.opening_sol AS openingSol, p.held_cost_sol AS heldCostSol, p.remaining_amount AS remainingAmount, p.peak_price_sol AS peakPriceSol,
  p.last_price_sol AS lastPriceSol, p.last_price_usd AS lastPriceUsd, p.levels_hit AS levelsHit,
  p.realized_profit_sol AS realizedProfitSol, p.realized_profit_usd AS realizedProfitUsd,
  p.moon_bag_activated AS moonBagActivated, p.moon_bag_amount AS moonBagAmount, p.dca_orders AS dcaOrders,
  p.purchase_transaction_id AS purchaseTransactionId, p.purchase_transaction_hash AS purchaseTransactionHash,
  c.overrides AS configOverrides, p.exit_config AS exitConfig, p.exit_config_applied_at AS exitConfigAppliedAt,
  p.opened_at AS openedAt, p.closed_at AS closedAt, p.close_reason AS closeReason,
  p.created_at AS createdAt, p.updated_at AS updatedAt
  FROM positions p
  JOIN agents a ON a.id = p.agent_id
  LEFT JOIN agent_configs c ON c.agent_id = p.agent_id`;

// Rows are fresh objects from bun:sqlite: the flag is fixed in place (a copy per row cost more).
const fix = (r: PositionRecord | null): PositionRecord | null => {
  if (r) r.moonBagActivated = Boolean(r.moonBagActivated);
  return r;
};

export class PositionRepository {
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

  /** Whether any open position of this wallet (whatever its agent) holds the token. */
  openForWalletToken(walletAddress: string, tokenAddress: string): boolean {
    return (
      this.sqlite
        .query<{ n: number }, [string, string]>(
          "SELECT count(*) AS n FROM positions WHERE wallet_address = ? AND token_address = ? AND status = 'open'",
        )
        .get(walletAddress, tokenAddress)!.n > 0
    );
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

  /**
   * The monitor's read, in one read transaction with the agents that hold the positions, in no
   * particular order. Only the columns the rules need, no join and no sort: reading every column
   * of 10,000 rows with the owner, opening transaction and configuration JSON joined on each, in
   * opened_at order, cost more than the rest of a tick (docs/decisions.md "Performance",
   * "Monitor tick").
   */
  monitoredOpen(): { positions: MonitorRow[]; agents: MonitoredAgent[] } {
    const positions = this.sqlite.query<MonitorRow, []>(
      `SELECT rowid, id, agent_id AS agentId, trading_mode AS tradingMode, token_address AS tokenAddress,
         token_decimals AS tokenDecimals, entry_price_sol AS entryPriceSol, remaining_amount AS remainingAmount,
         peak_price_sol AS peakPriceSol, levels_hit AS levelsHit, moon_bag_activated AS moonBagActivated,
         dca_orders AS dcaOrders, opened_at AS openedAt, exit_config AS exitConfig
       FROM positions WHERE status = 'open'`,
    );
    const agents = this.sqlite.query<MonitoredAgent, []>(
      `SELECT a.id AS agentId, a.user_id AS userId, c.overrides AS configOverrides
       FROM agents a LEFT JOIN agent_configs c ON c.agent_id = a.id
       WHERE EXISTS (SELECT 1 FROM positions p WHERE p.agent_id = a.id AND p.status = 'open')`,
    );
    return this.sqlite
      .transaction(() => {
        const rows = positions.all();
        for (const r of rows) r.moonBagActivated = Boolean(r.moonBagActivated);
        return { positions: rows, agents: agents.all() };
      })
      .deferred();
  }

  /**
   * SOL swapped by the position's opening buy (fees and rent excluded), as settlement wrote it on
   * the position: the base of DCA order sizes. Never read from the BUY's ledger row, which
   * `PUT /agent-transactions/:id` can edit (editing the ledger changes what is shown, not what the
   * agent does).
   */
  openingSolAmount(positionId: string): string {
    return (
      this.sqlite.query<{ a: string }, [string]>("SELECT opening_sol AS a FROM positions WHERE id = ?").get(positionId)
        ?.a ?? "0"
    );
  }

  /** Open positions of the agents (optionally of one wallet), newest first. */
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

  /** Remaining tokens and last known price (entry price until priced) of a wallet's open positions. */
  openHoldings(agentId: string, walletAddress: string): Array<{ remaining: string; price: string }> {
    return this.sqlite
      .query<{ remaining: string; price: string }, [string, string]>(
        "SELECT remaining_amount AS remaining, COALESCE(last_price_sol, entry_price_sol) AS price FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'",
      )
      .all(agentId, walletAddress);
  }

  /** Open positions of one wallet of the agent (a wallet with any cannot be reassigned). */
  countOpenInWallet(agentId: string, walletAddress: string): number {
    return (
      this.sqlite
        .query<{ n: number }, [string, string]>(
          "SELECT COUNT(*) AS n FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'",
        )
        .get(agentId, walletAddress)?.n ?? 0
    );
  }

  /** The symbol the agent's newest position in the token was opened with. */
  latestSymbol(agentId: string, tokenAddress: string): string | undefined {
    return (
      this.sqlite
        .query<{ s: string }, [string, string]>(
          "SELECT token_symbol AS s FROM positions WHERE agent_id = ? AND token_address = ? ORDER BY opened_at DESC LIMIT 1",
        )
        .get(agentId, tokenAddress)?.s ?? undefined
    );
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

  // --- writes (inside the caller's synchronous transaction where a trade settles) -------------

  /** A simulation wallet reset removes the wallet's open positions; returns how many. */
  deleteOpenInWallet(agentId: string, walletAddress: string): number {
    return this.sqlite
      .query("DELETE FROM positions WHERE agent_id = ? AND wallet_address = ? AND status = 'open'")
      .run(agentId, walletAddress).changes;
  }

  /** The position a signal buy opens: everything bought remains, priced at the entry. */
  insertOpen(o: NewOpenPosition, now: string): void {
    this.sqlite
      .query(
        `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, signal_id,
           status, entry_price_sol, entry_price_usd, purchase_amount, cost_sol, cost_usd, opening_sol, held_cost_sol, remaining_amount,
           peak_price_sol, last_price_sol, last_price_usd, purchase_transaction_id, purchase_transaction_hash, opened_at, created_at,
           updated_at, exit_config)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        o.id,
        o.agentId,
        o.walletAddress,
        o.tradingMode,
        o.tokenAddress,
        o.tokenSymbol,
        o.tokenDecimals,
        o.signalId,
        o.entryPriceSol,
        o.entryPriceUsd,
        o.purchaseAmount,
        o.costSol,
        o.costUsd,
        o.openingSol,
        o.heldCostSol,
        o.purchaseAmount,
        o.entryPriceSol,
        o.entryPriceSol,
        o.entryPriceUsd,
        o.purchaseTransactionId,
        o.purchaseTransactionHash,
        now,
        now,
        now,
        o.exitConfig,
      );
  }

  /** A DCA buy: averaged entry, more tokens, more cost. */
  applyDca(id: string, f: DcaFields, now: string): void {
    this.sqlite
      .query(
        `UPDATE positions SET entry_price_sol = ?, entry_price_usd = ?, purchase_amount = ?, remaining_amount = ?, cost_sol = ?,
           cost_usd = ?, held_cost_sol = ?, dca_orders = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        f.entryPriceSol,
        f.entryPriceUsd,
        f.purchaseAmount,
        f.remainingAmount,
        f.costSol,
        f.costUsd,
        f.heldCostSol,
        f.dcaOrders,
        now,
        id,
      );
  }

  /** A take-profit sale: fewer tokens, the level reached, the profit locked in. */
  recordTakeProfit(id: string, f: TakeProfitFields, now: string): void {
    this.sqlite
      .query(
        `UPDATE positions SET remaining_amount = ?, held_cost_sol = ?, levels_hit = ?, realized_profit_sol = ?,
           realized_profit_usd = ?, moon_bag_activated = ?, moon_bag_amount = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        f.remainingAmount,
        f.heldCostSol,
        f.levelsHit,
        f.realizedProfitSol,
        f.realizedProfitUsd,
        f.moonBagActivated ? 1 : 0,
        f.moonBagAmount,
        now,
        id,
      );
  }

  close(id: string, f: CloseFields, now: string): void {
    this.sqlite
      .query(
        "UPDATE positions SET status = 'closed', held_cost_sol = '0', remaining_amount = ?, closed_at = ?, close_reason = ?, last_price_sol = ?, updated_at = ? WHERE id = ?",
      )
      .run(f.remainingAmount, now, f.closeReason, f.lastPriceSol, now, id);
  }

  /**
   * Current and peak prices of many open positions in one transaction (the monitor's tick). The
   * row is found by rowid (a quarter less time than through the id index for 10,000 rows); the id
   * must still match, so a rowid renumbered since the read (a VACUUM) updates nothing rather than
   * another row, and a position closed since the read keeps its closing price.
   */
  recordPrices(updates: readonly PriceUpdate[], now: string): void {
    const upd = this.sqlite.query<unknown, [string | null, string | null, string, string, number, string]>(
      "UPDATE positions SET last_price_sol = ?, last_price_usd = ?, peak_price_sol = ?, updated_at = ? WHERE rowid = ? AND id = ? AND status = 'open'",
    );
    this.sqlite.transaction(() => {
      for (const u of updates) upd.run(u.lastPriceSol, u.lastPriceUsd, u.peakPriceSol, now, u.rowid, u.id);
    })();
  }
}
