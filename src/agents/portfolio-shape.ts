// The answer of GET /api/v1/portfolio (computed in portfolio.ts), in a file of its own with no
// imports so the dashboard (src/dashboard/ui/types.ts) reads the same declaration.

export interface ModeTotals {
  /** Wallets of this mode assigned to the user's agents: a live row exists from the first live wallet on. */
  wallets: number;
  solBalance: string;
  openPositions: number;
  positionsValueSol: string;
  totalValueSol: string;
  /** totalValueSol at the current SOL/USD price, rounded down to cents; null while no price is known. */
  totalValueUsd: string | null;
  realizedProfitLossSol: string;
  realizedProfitLossUsd: string;
  unrealizedProfitLossSol: string;
  unrealizedProfitLossUsd: string;
  closedTrades: number;
  today: { realizedProfitLossSol: string; realizedProfitLossUsd: string; closedTrades: number };
}

export interface Portfolio {
  agents: number;
  solUsdPrice: string | null;
  todayStart: string;
  simulation: ModeTotals;
  live: ModeTotals;
}
