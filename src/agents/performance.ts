import type { DatabaseHandle } from "../db/client.ts";
import { type ClosedTrade, SettlementRepository } from "../db/repositories/settlement.ts";
import { Big, decStr } from "../money.ts";
import type { OpenPositionSource } from "./open-positions.ts";

// GET /agents/:id/performance (PRODUCT.md §3): closed trades come from historical_swaps (sale
// time inside the optional range), the open side from the open-position source (current state,
// not limited by the range; unrealized P/L as rules/pnl.ts positionPnl defines it, the figure the
// position endpoints show). Sums are exact (big.js) and returned as decimal strings, like the
// ledgers they are computed from.

interface TradeSummary {
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

const summary = (r: ClosedTrade): TradeSummary => ({ ...r });

export async function computePerformance(
  h: Pick<DatabaseHandle, "sqlite">,
  positions: OpenPositionSource,
  agentId: string,
  range: { startDate?: string; endDate?: string },
): Promise<AgentPerformance> {
  const rows = new SettlementRepository(h.sqlite).closedTrades(agentId, range.startDate ?? "", range.endDate ?? "9999");

  let wins = 0;
  let losses = 0;
  let plSol = new Big(0);
  let plUsd = new Big(0);
  let best: { row: ClosedTrade; pl: Big } | null = null;
  let worst: { row: ClosedTrade; pl: Big } | null = null;
  for (const row of rows) {
    const pl = new Big(row.profitLossSol);
    if (pl.gt(0)) wins++;
    else if (pl.lt(0)) losses++;
    plSol = plSol.plus(pl);
    plUsd = plUsd.plus(row.profitLossUsd);
    if (!best || pl.gt(best.pl)) best = { row, pl };
    if (!worst || pl.lt(worst.pl)) worst = { row, pl };
  }

  const open = await positions.listPriced({ agentIds: [agentId] });
  let unrealizedSol = new Big(0);
  let unrealizedUsd = new Big(0);
  for (const p of open) {
    unrealizedSol = unrealizedSol.plus(p.unrealizedSol);
    unrealizedUsd = unrealizedUsd.plus(p.unrealizedUsd);
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
