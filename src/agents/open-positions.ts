import type { Big } from "../money.ts";

// Open positions as SPEC "Position (open)" shows them. GET /agent-positions/:agentId,
// GET /agents/:id/positions and the agent performance read them through `OpenPositionSource`;
// both implementations (src/trading/position-view.ts: market-priced, or the last stored prices
// when no token-price source is configured) compute P/L with the one function,
// src/trading/rules/pnl.ts positionPnl.

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
  /** Beyond SPEC: the rules' price levels now, in SOL (src/trading/rules/position-levels.ts). */
  levels: {
    stopLossPrice: number | null;
    takeProfit: Array<{ level: number; price: number; hit: boolean }>;
    dca: Array<{ order: number; price: number }>;
    dcaOrdersFilled: number;
  };
  /**
   * Beyond SPEC (issue 44 item 2): the exit rules the position follows and since when: `opened`
   * with them, `applied` by a config edit sent with applyToOpenPositions, or `agent` (opened before
   * positions kept their own: the agent's current ones). src/agents/position-config.ts.
   */
  exitConfig: {
    source: "opened" | "applied" | "agent";
    since: string | null;
    stopLoss: { enabled: boolean; percentage: number };
    takeProfit: { enabled: boolean; percentage: number; sellPercentage: number; maxLevels: number };
    dca: { enabled: boolean; maxOrders: number; priceDropTriggerPercentage: number; amountPercentage: number };
    maxPositionAgeDays: number | null;
  };
  /** Why the monitor does not act on the position now (no usable price); null while it is priced. */
  waitingReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OpenPositionQuery {
  agentIds: readonly string[];
  walletAddress?: string;
}

/** A position view with its exact (unrounded) unrealized P/L, for sums such as the performance. */
export interface PricedPosition {
  view: PositionView;
  /** Exact value of the remaining tokens at the current price (positionPnl.valueNative). */
  valueSol: Big;
  /** Value of the remaining tokens minus the cost they carry (positionPnl.unrealizedSol). */
  unrealizedSol: Big;
  unrealizedUsd: Big;
}

export interface OpenPositionSource {
  /** Open positions of the given agents (the caller has checked ownership), newest first. */
  listOpen(q: OpenPositionQuery): Promise<PositionView[]>;
  /** The same positions with their exact unrealized P/L. */
  listPriced(q: OpenPositionQuery): Promise<PricedPosition[]>;
}
