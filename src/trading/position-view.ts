import type { OpenPositionQuery, OpenPositionSource, PositionView } from "../agents/open-positions.ts";
import { resolveStoredConfig } from "../agents/trading-config.ts";
import type { Logger } from "../logger.ts";
import type { SolPriceSource, TokenPriceProvider } from "../market/types.ts";
import { Big, decNum } from "../money.ts";
import type { PositionRecord, PositionStore } from "./position-store.ts";
import { positionPnl } from "./rules/pnl.ts";

// Open positions with market data (SPEC "Position (open)"): current prices from the token-price
// source (USD) and SOL/USD; P/L is realized take-profit profit plus unrealized. When the market
// cannot be reached the list still answers, from the prices the monitor stored last.

export class MarketPricedPositions implements OpenPositionSource {
  constructor(
    private readonly positions: PositionStore,
    private readonly tokenPrices: TokenPriceProvider,
    private readonly solPrice: SolPriceSource,
    private readonly logger: Logger,
  ) {}

  async listOpen(q: OpenPositionQuery): Promise<PositionView[]> {
    const rows = this.positions.openForAgents(q.agentIds, q.walletAddress);
    if (rows.length === 0) return [];
    let prices = new Map<string, { usd: string }>();
    let solUsd: Big | null = null;
    try {
      const [p, s] = await Promise.all([
        this.tokenPrices.getPrices([...new Set(rows.map((r) => r.tokenAddress))]),
        this.solPrice.current() ?? this.solPrice.fetchCurrent(),
      ]);
      prices = p;
      solUsd = new Big(s.price);
    } catch (err) {
      this.logger.warn("positions priced from stored values: market unavailable", {
        reason: err instanceof Error ? err.message : String(err),
      });
    }
    return rows.map((r) => shapePosition(r, prices.get(r.tokenAddress)?.usd ?? null, solUsd));
  }
}

export function shapePosition(r: PositionRecord, tokenUsd: string | null, solUsd: Big | null): PositionView {
  // USD per SOL: live when known, otherwise implied by the last stored USD and SOL prices.
  const impliedSolUsd =
    r.lastPriceSol && r.lastPriceUsd && new Big(r.lastPriceSol).gt(0)
      ? new Big(r.lastPriceUsd).div(r.lastPriceSol)
      : new Big(r.entryPriceUsd).div(r.entryPriceSol);
  const sol = solUsd ?? impliedSolUsd;
  const priceSol = tokenUsd && sol.gt(0) ? new Big(tokenUsd).div(sol) : new Big(r.lastPriceSol ?? r.entryPriceSol);
  const pnl = positionPnl({
    costSol: r.costSol,
    purchaseAmount: r.purchaseAmount,
    remainingAmount: r.remainingAmount,
    entryPriceSol: r.entryPriceSol,
    realizedProfitSol: r.realizedProfitSol,
    currentPriceSol: priceSol,
    solUsdPrice: sol,
  });
  const config = resolveStoredConfig(r.configOverrides);
  return {
    id: r.id,
    agentId: r.agentId,
    walletAddress: r.walletAddress,
    tokenAddress: r.tokenAddress,
    tokenSymbol: r.tokenSymbol,
    purchase: {
      priceNative: decNum(r.entryPriceSol),
      priceUsd: decNum(r.entryPriceUsd),
      amount: decNum(r.purchaseAmount),
      transaction: { id: r.purchaseTransactionId, hash: r.purchaseTransactionHash, time: r.openedAt },
    },
    current: {
      priceNative: decNum(pnl.currentPriceNative),
      priceUsd: decNum(pnl.currentPriceUsd),
      valueNative: decNum(pnl.valueNative),
      valueUsd: decNum(pnl.valueUsd),
    },
    profitLoss: {
      native: decNum(pnl.profitLossNative),
      usd: decNum(pnl.profitLossUsd),
      percent: decNum(pnl.profitLossPercent),
      priceChangePercent: decNum(pnl.priceChangePercent),
    },
    stopLoss: { percentage: config.stopLoss.percentage, peakPrice: decNum(r.peakPriceSol) },
    takeProfit: {
      remainingAmount: decNum(r.remainingAmount),
      levelsHit: r.levelsHit,
      realizedProfitSol: decNum(r.realizedProfitSol),
      moonBagActivated: r.moonBagActivated,
      moonBagAmount: r.moonBagAmount === null ? null : decNum(r.moonBagAmount),
    },
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
