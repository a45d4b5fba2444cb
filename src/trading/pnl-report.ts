import type { Database } from "bun:sqlite";
import { type ReportTrade, reportTrades } from "../db/repositories/reports.ts";
import { Big, decStr } from "../money.ts";
import type { GroupBy, PnlReport, PnlReportRow } from "./pnl-report-shape.ts";
import { heldCostAfterBuy, salePnl } from "./rules/pnl.ts";

// Realized P/L by UTC day, ISO week or token (issue 44 item 4; docs/decisions/
// operator-experience-v.md "Reports"). Each SELL realizes, on its own time, what rules/pnl.ts
// salePnl says it realizes (net proceeds less the average cost of the tokens sold): a take-profit
// sale counts on its day, the close on its day, and a closed position's sales sum to its P/L
// (fees in, rent out: docs/decisions/pnl-is-wallet-gain.md). The cost basis is replayed from the
// position's own trade records in order, as the engine built it; no second formula.

interface Sale {
  time: string;
  tokenAddress: string;
  tokenSymbol: string;
  sol: Big;
  usd: Big;
}

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");

/** The ISO 8601 week (weeks start on Monday; week 1 holds the year's first Thursday) of a UTC day. */
export function isoWeek(day: string): { key: string; start: string } {
  const d = Date.parse(`${day}T00:00:00.000Z`);
  const monday = d - ((new Date(d).getUTCDay() + 6) % 7) * DAY_MS;
  const thursday = new Date(monday + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS / 7) + 1;
  return { key: `${year}-W${pad(week)}`, start: new Date(monday).toISOString().slice(0, 10) };
}

/** Every sale of the positions' records with what it realized; records come grouped by position, in order. */
function replaySales(trades: ReportTrade[]): Sale[] {
  const sales: Sale[] = [];
  const lastSell = new Map<string, number>();
  trades.forEach((t, i) => {
    if (t.type === "SELL") lastSell.set(t.positionId, i);
  });
  let position = "";
  let held = new Big(0);
  let remaining = new Big(0);
  trades.forEach((t, i) => {
    if (t.positionId !== position) [position, held, remaining] = [t.positionId, new Big(0), new Big(0)];
    if (t.type === "BUY") {
      held = heldCostAfterBuy(held, t.inputAmount, t.fees);
      remaining = remaining.plus(t.outputAmount);
      return;
    }
    // A closed position's last sale is its close: it takes all the cost left, as closePnl does.
    const closing = t.positionStatus === "closed" && lastSell.get(t.positionId) === i;
    const sold = closing ? remaining : new Big(t.inputAmount);
    const sale = salePnl({
      heldCostSol: held,
      remainingAmount: remaining,
      tokensSold: sold,
      proceedsSol: t.outputAmount,
      feesSol: t.fees,
    });
    held = sale.heldCostAfterSol;
    remaining = remaining.gt(sold) ? remaining.minus(sold) : new Big(0);
    sales.push({
      time: t.time,
      tokenAddress: t.tokenAddress,
      tokenSymbol: t.tokenSymbol,
      sol: sale.realizedProfitSol,
      usd: sale.realizedProfitSol.times(t.outputPrice ?? 0),
    });
  });
  return sales;
}

function groupOf(sale: Sale, by: GroupBy): Pick<PnlReportRow, "key" | "periodStart" | "tokenSymbol"> {
  const day = new Date(sale.time).toISOString().slice(0, 10);
  if (by === "day") return { key: day, periodStart: day, tokenSymbol: null };
  if (by === "week") {
    const w = isoWeek(day);
    return { key: w.key, periodStart: w.start, tokenSymbol: null };
  }
  return { key: sale.tokenAddress, periodStart: null, tokenSymbol: sale.tokenSymbol };
}

/** Sums the sales per group: periods oldest first, tokens by realized SOL, best first. */
function groupSales(sales: Sale[], by: GroupBy): Pick<PnlReport, "rows" | "total"> {
  const groups = new Map<string, { head: ReturnType<typeof groupOf>; sales: number; sol: Big; usd: Big }>();
  let [sol, usd] = [new Big(0), new Big(0)];
  for (const s of sales) {
    const head = groupOf(s, by);
    const g = groups.get(head.key) ?? { head, sales: 0, sol: new Big(0), usd: new Big(0) };
    groups.set(head.key, { ...g, sales: g.sales + 1, sol: g.sol.plus(s.sol), usd: g.usd.plus(s.usd) });
    [sol, usd] = [sol.plus(s.sol), usd.plus(s.usd)];
  }
  const list = [...groups.values()].sort((x, y) =>
    by === "token" ? y.sol.cmp(x.sol) || x.head.key.localeCompare(y.head.key) : x.head.key.localeCompare(y.head.key),
  );
  return {
    rows: list.map((g) => ({
      ...g.head,
      sales: g.sales,
      realizedProfitLossSol: decStr(g.sol),
      realizedProfitLossUsd: decStr(g.usd),
    })),
    total: { sales: sales.length, realizedProfitLossSol: decStr(sol), realizedProfitLossUsd: decStr(usd) },
  };
}

export function computePnlReport(
  sqlite: Database,
  q: {
    userId: string;
    groupBy: GroupBy;
    agentId: string | null;
    mode: "simulation" | "live";
    from: string | null;
    to: string | null;
  },
): PnlReport {
  const trades = reportTrades(sqlite, { ...q, from: q.from ?? "", to: q.to ?? "9999" });
  const inRange = replaySales(trades).filter((s) => s.time >= (q.from ?? "") && s.time <= (q.to ?? "9999"));
  return {
    groupBy: q.groupBy,
    agentId: q.agentId,
    mode: q.mode,
    from: q.from,
    to: q.to,
    ...groupSales(inRange, q.groupBy),
  };
}
