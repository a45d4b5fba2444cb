// The answer of GET /api/v1/reports/pnl (computed in pnl-report.ts), in a file of its own with no
// imports so the dashboard (src/dashboard/ui/pages/reports.tsx) reads the same declaration.

export type GroupBy = "day" | "week" | "token";

export interface PnlReportRow {
  /** YYYY-MM-DD (day), YYYY-Www (ISO week) or the token's mint (token). */
  key: string;
  /** The day, or the Monday the week starts on; null by token. */
  periodStart: string | null;
  /** By token only. */
  tokenSymbol: string | null;
  sales: number;
  realizedProfitLossSol: string;
  realizedProfitLossUsd: string;
}

export interface PnlReport {
  groupBy: GroupBy;
  agentId: string | null;
  mode: "simulation" | "live";
  from: string | null;
  to: string | null;
  rows: PnlReportRow[];
  total: { sales: number; realizedProfitLossSol: string; realizedProfitLossUsd: string };
}
