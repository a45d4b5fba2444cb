// Shapes of the API answers the dashboard reads (SPEC "Resources and their fields").

export interface Agent {
  id: string;
  name: string;
  tradingMode: "simulation" | "live";
  automatedTradingSimulation: boolean;
  automatedTradingLive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Performance {
  totalTrades: number;
  wins: number;
  losses: number;
  winRate: number;
  realizedProfitLossSol: string;
  realizedProfitLossUsd: string;
  bestTrade: { tokenSymbol: string; profitLossSol: string; changePercent: string } | null;
  worstTrade: { tokenSymbol: string; profitLossSol: string; changePercent: string } | null;
  openPositions: number;
  unrealizedProfitLossSol: string;
  unrealizedProfitLossUsd: string;
}

export interface Balance {
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  balance: string;
  priceSol?: number;
}

export interface Position {
  id: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  purchase: { priceNative: number; priceUsd: number; amount: number; transaction: { id: string; time: string } };
  current: { priceNative: number; priceUsd: number; valueNative: number; valueUsd: number };
  profitLoss: { native: number; usd: number; percent: number; priceChangePercent: number };
  stopLoss: { percentage: number; peakPrice: number };
  takeProfit: { remainingAmount: number; levelsHit: number; realizedProfitSol: number; moonBagActivated: boolean };
  /** The rules' price levels now (SOL); absent from servers that do not report them. */
  levels?: {
    stopLossPrice: number | null;
    takeProfit: Array<{ level: number; price: number; hit: boolean }>;
    dca: Array<{ order: number; price: number }>;
    dcaOrdersFilled: number;
  };
  /** The exit rules the position follows and since when (src/agents/position-config.ts). */
  exitConfig?: { source: "opened" | "applied" | "agent"; since: string | null };
  createdAt: string;
}

/** GET /portfolio: totals across the user's agents, per trading mode. */
export type { ModeTotals, Portfolio } from "../../agents/portfolio-shape.ts";

export interface PriceBar {
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
}

export interface Swap {
  id: string;
  tokenAddress: string;
  tokenSymbol: string;
  amount: string;
  purchasePrice: string;
  salePrice: string;
  changePercent: string;
  profitLossUsd: string;
  profitLossSol: string;
  purchaseTime: string;
  saleTime: string;
  closeReason: string;
  signalId: string | null;
}

export interface Transaction {
  id: string;
  transactionType: "BUY" | "SELL";
  transactionTime: string;
  transactionValueUsd: string;
  inputMint: string;
  inputSymbol: string;
  inputAmount: string;
  outputMint: string;
  outputSymbol: string;
  outputAmount: string;
  signalId: number | null;
  isDca: boolean;
  isTakeProfit: boolean;
  fees: string;
  /** confirmed, pending (live, awaiting the chain), unknown (live, not provable: see the page's note), failed. */
  status: string;
  transactionHash: string | null;
}

export interface Signal {
  id: number;
  createdAt: string;
  tokenAddress: string;
  symbol: string | null;
  signalType: string;
  signalStrength: number;
  activationReason: string | null;
  source: string | null;
  processing?: {
    status: string;
    evaluations: Array<{
      agentId: string;
      agentName: string;
      outcome: string;
      rule: string | null;
      reason: string | null;
      positionId: string | null;
      transactionId: string | null;
      at: string;
    }>;
  };
}

export interface SolPrice {
  price: string;
  lastUpdated: string;
  isStale: boolean;
  source: string;
  /** Since when no fresh price has been had (absent from older servers; null while fresh). */
  unavailableSince?: string | null;
}

export const SOL_MINT = "So11111111111111111111111111111111111111112";
