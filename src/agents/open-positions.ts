import type { Database } from "bun:sqlite";
import { Big, decNum } from "../money.ts";
import { resolveStoredConfig } from "./trading-config.ts";

// Open positions as SPEC "Position (open)" shows them. GET /agents/:id/positions and the agent
// performance read them through `OpenPositionSource`, the seam the trading engine fills with its
// market-priced implementation (issue 5: current prices from the token-price source). Until then
// `StoredOpenPositions` shapes the rows of the positions table with the last prices the monitor
// stored (entry price when none), so the endpoint already answers from real data.

export interface PositionView {
  id: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  purchase: {
    priceNative: number;
    priceUsd: number;
    amount: number;
    transaction: { id: string; hash: string; time: string };
  };
  current: { priceNative: number; priceUsd: number; valueNative: number; valueUsd: number };
  profitLoss: { native: number; usd: number; percent: number; priceChangePercent: number };
  stopLoss: { percentage: number; peakPrice: number };
  takeProfit: {
    remainingAmount: number;
    levelsHit: number;
    realizedProfitSol: number;
    moonBagActivated: boolean;
    moonBagAmount: number | null;
  };
  createdAt: string;
  updatedAt: string;
}

export interface OpenPositionQuery {
  agentIds: readonly string[];
  walletAddress?: string;
}

export interface OpenPositionSource {
  /** Open positions of the given agents (the caller has checked ownership), newest first. */
  listOpen(q: OpenPositionQuery): Promise<PositionView[]>;
}

interface PositionRow {
  id: string;
  agent_id: string;
  wallet_address: string;
  token_address: string;
  token_symbol: string;
  entry_price_sol: string;
  entry_price_usd: string;
  purchase_amount: string;
  cost_sol: string;
  cost_usd: string;
  remaining_amount: string;
  peak_price_sol: string;
  last_price_sol: string | null;
  last_price_usd: string | null;
  levels_hit: number;
  realized_profit_sol: string;
  realized_profit_usd: string;
  moon_bag_activated: number;
  moon_bag_amount: string | null;
  purchase_transaction_id: string;
  purchase_transaction_hash: string;
  opened_at: string;
  created_at: string;
  updated_at: string;
  overrides: string | null;
}

/** Reads open rows of the positions table; prices are the last stored ones (no network). */
export class StoredOpenPositions implements OpenPositionSource {
  constructor(private readonly h: { sqlite: Database }) {}

  async listOpen(q: OpenPositionQuery): Promise<PositionView[]> {
    if (q.agentIds.length === 0) return [];
    const marks = q.agentIds.map(() => "?").join(", ");
    const params: string[] = [...q.agentIds];
    let where = `p.status = 'open' AND p.agent_id IN (${marks})`;
    if (q.walletAddress !== undefined) {
      where += " AND p.wallet_address = ?";
      params.push(q.walletAddress);
    }
    const rows = this.h.sqlite
      .query<PositionRow, string[]>(
        `SELECT p.*, c.overrides FROM positions p LEFT JOIN agent_configs c ON c.agent_id = p.agent_id
          WHERE ${where} ORDER BY p.opened_at DESC, p.rowid DESC`,
      )
      .all(...params);
    return rows.map(shapeStoredPosition);
  }
}

function shapeStoredPosition(r: PositionRow): PositionView {
  const entrySol = new Big(r.entry_price_sol);
  const entryUsd = new Big(r.entry_price_usd);
  const priceSol = new Big(r.last_price_sol ?? r.entry_price_sol);
  const priceUsd = new Big(r.last_price_usd ?? r.entry_price_usd);
  const remaining = new Big(r.remaining_amount);
  const valueSol = remaining.times(priceSol);
  const valueUsd = remaining.times(priceUsd);
  // Realized (take-profit) plus unrealized on what remains, against the average entry.
  const plSol = new Big(r.realized_profit_sol).plus(valueSol.minus(remaining.times(entrySol)));
  const plUsd = new Big(r.realized_profit_usd).plus(valueUsd.minus(remaining.times(entryUsd)));
  const cost = new Big(r.cost_sol);
  const config = resolveStoredConfig(r.overrides);
  return {
    id: r.id,
    agentId: r.agent_id,
    walletAddress: r.wallet_address,
    tokenAddress: r.token_address,
    tokenSymbol: r.token_symbol,
    purchase: {
      priceNative: decNum(entrySol),
      priceUsd: decNum(entryUsd),
      amount: decNum(r.purchase_amount),
      transaction: { id: r.purchase_transaction_id, hash: r.purchase_transaction_hash, time: r.opened_at },
    },
    current: {
      priceNative: decNum(priceSol),
      priceUsd: decNum(priceUsd),
      valueNative: decNum(valueSol),
      valueUsd: decNum(valueUsd),
    },
    profitLoss: {
      native: decNum(plSol),
      usd: decNum(plUsd),
      percent: cost.eq(0) ? 0 : decNum(plSol.div(cost).times(100)),
      priceChangePercent: entrySol.eq(0) ? 0 : decNum(priceSol.minus(entrySol).div(entrySol).times(100)),
    },
    stopLoss: { percentage: config.stopLoss.percentage, peakPrice: decNum(r.peak_price_sol) },
    takeProfit: {
      remainingAmount: decNum(remaining),
      levelsHit: r.levels_hit,
      realizedProfitSol: decNum(r.realized_profit_sol),
      moonBagActivated: r.moon_bag_activated === 1,
      moonBagAmount: r.moon_bag_amount === null ? null : decNum(r.moon_bag_amount),
    },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
