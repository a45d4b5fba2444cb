import type { OpenPositionQuery, OpenPositionSource, PositionView, PricedPosition } from "../agents/open-positions.ts";
import { exitConfigView, positionConfig } from "../agents/position-config.ts";
import { resolveStoredConfig } from "../agents/trading-config.ts";
import type { PositionRecord, PositionRepository } from "../db/repositories/positions.ts";
import type { Logger } from "../logger.ts";
import type { SolPriceSource, TokenPriceProvider } from "../market/types.ts";
import { Big, decNum } from "../money.ts";
import type { PriceWaits } from "./monitor-prices.ts";
import { positionPnl } from "./rules/pnl.ts";
import { positionLevels } from "./rules/position-levels.ts";

// Open positions as SPEC "Position (open)" shows them, with their P/L from the ONE P/L function
// (rules/pnl.ts positionPnl: realized take-profit profit plus the remaining tokens' value minus
// the fee-inclusive cost they carry). Two sources of the current price, one shape:
//   - MarketPricedPositions: token prices from the token-price source (USD) and SOL/USD; when the
//     market cannot be reached it answers from the prices the monitor stored last;
//   - StoredOpenPositions (no token-price source configured): the last stored prices (entry
//     price when none), never the network.

/** Open positions priced at market; stored prices when the market cannot be reached. */
export class MarketPricedPositions implements OpenPositionSource {
  constructor(
    private readonly positions: PositionRepository,
    private readonly tokenPrices: TokenPriceProvider,
    private readonly solPrice: SolPriceSource,
    private readonly logger: Logger,
    private readonly waits?: PriceWaits,
  ) {}

  async listOpen(q: OpenPositionQuery): Promise<PositionView[]> {
    return (await this.listPriced(q)).map((p) => p.view);
  }

  async listPriced(q: OpenPositionQuery): Promise<PricedPosition[]> {
    const rows = this.positions.openForAgents(q.agentIds, q.walletAddress);
    if (rows.length === 0) return [];
    let prices = new Map<string, { usd: string }>();
    let solUsd: Big | null = null;
    try {
      const [p, s] = await Promise.all([
        this.tokenPrices.getPrices([...new Set(rows.map((r) => r.tokenAddress))]),
        this.solPrice.current() ?? this.solPrice.fetchCurrent(),
      ]);
      // A stale SOL/USD would show every token moving with SOL: the prices the monitor stored
      // (in SOL, from a sell quote while SOL/USD is stale) are shown instead.
      if (!s.isStale) {
        prices = p;
        solUsd = new Big(s.price);
      }
    } catch (err) {
      this.logger.warn("positions priced from stored values: market unavailable", {
        reason: err instanceof Error ? err.message : String(err),
      });
    }
    return rows.map((r) => pricePosition(r, prices.get(r.tokenAddress)?.usd ?? null, solUsd, this.waits));
  }
}

/** Open positions priced at the last prices the monitor stored (no network). */
export class StoredOpenPositions implements OpenPositionSource {
  constructor(
    private readonly positions: PositionRepository,
    private readonly waits?: PriceWaits,
  ) {}

  async listOpen(q: OpenPositionQuery): Promise<PositionView[]> {
    return (await this.listPriced(q)).map((p) => p.view);
  }

  async listPriced(q: OpenPositionQuery): Promise<PricedPosition[]> {
    return this.positions
      .openForAgents(q.agentIds, q.walletAddress)
      .map((r) => pricePosition(r, null, null, this.waits));
  }
}

/**
 * A position at a token price in USD and a SOL/USD price; either may be unknown (null): the SOL
 * price is then the one implied by the last stored USD and SOL prices, and the token price the
 * last stored one (the entry price until the monitor priced it).
 */
function pricePosition(
  r: PositionRecord,
  tokenUsd: string | null,
  solUsd: Big | null,
  waits?: Pick<PriceWaits, "get">,
): PricedPosition {
  const impliedSolUsd =
    r.lastPriceSol && r.lastPriceUsd && new Big(r.lastPriceSol).gt(0)
      ? new Big(r.lastPriceUsd).div(r.lastPriceSol)
      : new Big(r.entryPriceUsd).div(r.entryPriceSol);
  const sol = solUsd ?? impliedSolUsd;
  const live = Boolean(tokenUsd) && sol.gt(0);
  const priceSol = live ? new Big(tokenUsd as string).div(sol) : new Big(r.lastPriceSol ?? r.entryPriceSol);
  const pnl = positionPnl({
    costSol: r.costSol,
    heldCostSol: r.heldCostSol,
    remainingAmount: r.remainingAmount,
    entryPriceSol: r.entryPriceSol,
    realizedProfitSol: r.realizedProfitSol,
    currentPriceSol: priceSol,
    solUsdPrice: sol,
    // Stored prices with no live SOL price: the stored USD price as it is (the SOL/USD was implied from it).
    ...(!live && solUsd === null ? { currentPriceUsd: r.lastPriceUsd ?? r.entryPriceUsd } : {}),
  });
  const config = positionConfig(resolveStoredConfig(r.configOverrides), r.exitConfig);
  const levels = positionLevels(config, {
    entryPriceSol: r.entryPriceSol,
    peakPriceSol: r.peakPriceSol,
    levelsHit: r.levelsHit,
    dcaOrders: r.dcaOrders,
    moonBagActivated: r.moonBagActivated,
  });
  const view: PositionView = {
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
    levels: {
      stopLossPrice: levels.stopLossPrice ? decNum(levels.stopLossPrice) : null,
      takeProfit: levels.takeProfit.map((l) => ({ level: l.level, price: decNum(l.price), hit: l.hit })),
      dca: levels.dca.map((l) => ({ order: l.order, price: decNum(l.price) })),
      dcaOrdersFilled: r.dcaOrders,
    },
    exitConfig: exitConfigView(config, r),
    waitingReason: waits?.get(r.id)?.reason ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
  return {
    view,
    valueSol: pnl.valueNative,
    unrealizedSol: pnl.unrealizedSol,
    unrealizedUsd: pnl.unrealizedSol.times(sol),
  };
}
