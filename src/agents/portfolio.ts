import type { SqliteHandle } from "../db/client.ts";
import {
  closedTradesOfUser,
  solHoldingsOfUser,
  type WalletMode,
  walletCountsOfUser,
} from "../db/repositories/portfolio.ts";
import { Big, decStr } from "../money.ts";
import type { OpenPositionSource } from "./open-positions.ts";
import type { ModeTotals, Portfolio } from "./portfolio-shape.ts";

// GET /api/v1/portfolio: the totals of all the user's agents, one set per mode. Simulation SOL is
// virtual, so it is never added to live SOL: each mode gets its own totals. The figures are the
// ones the agent pages show, summed exactly (big.js): SOL of the wallets assigned now, open
// positions at the value and unrealized P/L of the position endpoints (rules/pnl.ts), realized
// P/L of the historical swaps, and "today" = the realized P/L of positions closed since
// `todayStart` (the dashboard sends the viewer's local midnight; default UTC midnight).

export type { Portfolio };

interface Sums {
  wallets: number;
  sol: Big;
  positions: number;
  valueSol: Big;
  realizedSol: Big;
  realizedUsd: Big;
  unrealizedSol: Big;
  unrealizedUsd: Big;
  closed: number;
  todaySol: Big;
  todayUsd: Big;
  todayClosed: number;
}

const zero = (): Sums => ({
  wallets: 0,
  sol: new Big(0),
  positions: 0,
  valueSol: new Big(0),
  realizedSol: new Big(0),
  realizedUsd: new Big(0),
  unrealizedSol: new Big(0),
  unrealizedUsd: new Big(0),
  closed: 0,
  todaySol: new Big(0),
  todayUsd: new Big(0),
  todayClosed: 0,
});

/** UTC midnight of the day `nowMs` falls in. */
export const utcDayStart = (nowMs: number): string =>
  new Date(Math.floor(nowMs / 86_400_000) * 86_400_000).toISOString();

export async function computePortfolio(input: {
  db: SqliteHandle;
  positions: OpenPositionSource;
  agentIds: readonly string[];
  userId: string;
  solUsdPrice: string | null;
  todayStart: string;
}): Promise<Portfolio> {
  const sums: Record<WalletMode, Sums> = { simulation: zero(), live: zero() };
  for (const w of walletCountsOfUser(input.db, input.userId)) if (sums[w.mode]) sums[w.mode].wallets = w.n;
  for (const h of solHoldingsOfUser(input.db, input.userId)) sums[h.mode].sol = sums[h.mode].sol.plus(h.balance);
  const today = Date.parse(input.todayStart);
  for (const t of closedTradesOfUser(input.db, input.userId)) {
    const s = sums[t.mode];
    s.closed++;
    s.realizedSol = s.realizedSol.plus(t.profitLossSol);
    s.realizedUsd = s.realizedUsd.plus(t.profitLossUsd);
    if (Date.parse(t.saleTime) >= today) {
      s.todayClosed++;
      s.todaySol = s.todaySol.plus(t.profitLossSol);
      s.todayUsd = s.todayUsd.plus(t.profitLossUsd);
    }
  }
  const open = input.agentIds.length > 0 ? await input.positions.listPriced({ agentIds: input.agentIds }) : [];
  for (const p of open) {
    const s = sums[p.view.walletAddress.startsWith("sim_") ? "simulation" : "live"];
    s.positions++;
    s.valueSol = s.valueSol.plus(p.valueSol);
    s.unrealizedSol = s.unrealizedSol.plus(p.unrealizedSol);
    s.unrealizedUsd = s.unrealizedUsd.plus(p.unrealizedUsd);
  }
  const totals = (s: Sums): ModeTotals => {
    const total = s.sol.plus(s.valueSol);
    return {
      wallets: s.wallets,
      solBalance: decStr(s.sol),
      openPositions: s.positions,
      positionsValueSol: decStr(s.valueSol),
      totalValueSol: decStr(total),
      totalValueUsd: input.solUsdPrice === null ? null : decStr(total.times(input.solUsdPrice).round(2, Big.roundDown)),
      realizedProfitLossSol: decStr(s.realizedSol),
      realizedProfitLossUsd: decStr(s.realizedUsd),
      unrealizedProfitLossSol: decStr(s.unrealizedSol),
      unrealizedProfitLossUsd: decStr(s.unrealizedUsd),
      closedTrades: s.closed,
      today: {
        realizedProfitLossSol: decStr(s.todaySol),
        realizedProfitLossUsd: decStr(s.todayUsd),
        closedTrades: s.todayClosed,
      },
    };
  };
  return {
    agents: input.agentIds.length,
    solUsdPrice: input.solUsdPrice,
    todayStart: input.todayStart,
    simulation: totals(sums.simulation),
    live: totals(sums.live),
  };
}
