import type { Database } from "bun:sqlite";
import { Big, decStr } from "../money.ts";
import type { OpenPositionSource } from "./open-positions.ts";

// GET /agents/:id/performance (PRODUCT.md §3): closed trades come from historical_swaps (sale
// time inside the optional range), the open side from the open-position source (current state,
// not limited by the range). Sums are exact (big.js) and returned as decimal strings, like the
// ledgers they are computed from.

export interface TradeSummary {
  id: string;
  tokenAddress: string;
  tokenSymbol: string;
  profitLossSol: string;
  profitLossUsd: string;
  changePercent: string;
  closeReason: string;
  saleTime: string;
}

export interface AgentPerformance {
  agentId: string;
  startDate: string | null;
  endDate: string | null;
  totalTrades: number;
  wins: number;
  losses: number;
  /** Wins / totalTrades × 100, two decimals; 0 without trades. */
  winRate: number;
  realizedProfitLossSol: string;
  realizedProfitLossUsd: string;
  bestTrade: TradeSummary | null;
  worstTrade: TradeSummary | null;
  openPositions: number;
  unrealizedProfitLossSol: string;
  unrealizedProfitLossUsd: string;
}

interface SwapRow {
  id: string;
  token_address: string;
  token_symbol: string;
  profit_loss_sol: string;
  profit_loss_usd: string;
  change_percent: string;
  close_reason: string;
  sale_time: string;
}

const summary = (r: SwapRow): TradeSummary => ({
  id: r.id,
  tokenAddress: r.token_address,
  tokenSymbol: r.token_symbol,
  profitLossSol: r.profit_loss_sol,
  profitLossUsd: r.profit_loss_usd,
  changePercent: r.change_percent,
  closeReason: r.close_reason,
  saleTime: r.sale_time,
});

export async function computePerformance(
  h: { sqlite: Database },
  positions: OpenPositionSource,
  agentId: string,
  range: { startDate?: string; endDate?: string },
): Promise<AgentPerformance> {
  const rows = h.sqlite
    .query<SwapRow, [string, string, string]>(
      `SELECT id, token_address, token_symbol, profit_loss_sol, profit_loss_usd, change_percent, close_reason, sale_time
         FROM historical_swaps WHERE agent_id = ? AND sale_time >= ? AND sale_time <= ?
        ORDER BY sale_time ASC, rowid ASC`,
    )
    .all(agentId, range.startDate ?? "", range.endDate ?? "9999");

  let wins = 0;
  let losses = 0;
  let plSol = new Big(0);
  let plUsd = new Big(0);
  let best: { row: SwapRow; pl: Big } | null = null;
  let worst: { row: SwapRow; pl: Big } | null = null;
  for (const row of rows) {
    const pl = new Big(row.profit_loss_sol);
    if (pl.gt(0)) wins++;
    else if (pl.lt(0)) losses++;
    plSol = plSol.plus(pl);
    plUsd = plUsd.plus(row.profit_loss_usd);
    if (!best || pl.gt(best.pl)) best = { row, pl };
    if (!worst || pl.lt(worst.pl)) worst = { row, pl };
  }

  const open = await positions.listOpen({ agentIds: [agentId] });
  let unrealizedSol = new Big(0);
  let unrealizedUsd = new Big(0);
  for (const p of open) {
    // What the remaining tokens are worth now minus what they cost at the average entry.
    unrealizedSol = unrealizedSol.plus(
      new Big(p.current.valueNative).minus(new Big(p.takeProfit.remainingAmount).times(p.purchase.priceNative)),
    );
    unrealizedUsd = unrealizedUsd.plus(
      new Big(p.current.valueUsd).minus(new Big(p.takeProfit.remainingAmount).times(p.purchase.priceUsd)),
    );
  }

  return {
    agentId,
    startDate: range.startDate ?? null,
    endDate: range.endDate ?? null,
    totalTrades: rows.length,
    wins,
    losses,
    winRate:
      rows.length === 0 ? 0 : Number(new Big(wins).times(100).div(rows.length).round(2, Big.roundHalfUp).toFixed()),
    realizedProfitLossSol: decStr(plSol),
    realizedProfitLossUsd: decStr(plUsd),
    bestTrade: best ? summary(best.row) : null,
    worstTrade: worst ? summary(worst.row) : null,
    openPositions: open.length,
    unrealizedProfitLossSol: decStr(unrealizedSol),
    unrealizedProfitLossUsd: decStr(unrealizedUsd),
  };
}
