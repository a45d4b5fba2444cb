import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { CopyLimits } from "../copytrading/limits.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { GroupCommit } from "../db/group-commit.ts";
import { PositionRepository } from "../db/repositories/positions.ts";
import { WalCheckpointer } from "../db/wal-checkpointer.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { MarketServices } from "../market/index.ts";
import { QuotePricing } from "../market/quote-pricing.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { SignalService } from "../signals/signal-service.ts";
import type { TradeExecutor } from "../trading/executor.ts";
import { GuardRails } from "../trading/guard-rails.ts";
import { type LiveTrading, priorityFeeSettingOf } from "../trading/live/index.ts";
import { ManualBuys } from "../trading/manual-buy.ts";
import { ManualSales } from "../trading/manual-sale.ts";
import { MintWatch } from "../trading/mint-watch.ts";
import { PriceWaits } from "../trading/monitor-prices.ts";
import { PositionLocks } from "../trading/position-locks.ts";
import { PositionMonitor } from "../trading/position-monitor.ts";
import { simulationFeeModel } from "../trading/rules/simulation-fees.ts";
import { SignalProcessor } from "../trading/signal-processor.ts";
import { SimulationExecutor } from "../trading/simulation-executor.ts";
import { routePriorityFeeEstimate } from "../trading/simulation-priority-fee.ts";
import { TokenScreen } from "../trading/token-screen.ts";
import { TradingEngine } from "../trading/trading-engine.ts";
import type { ServiceOptions } from "./options.ts";

export interface TradingArea {
  signals: SignalService;
  walCheckpoints: WalCheckpointer;
  groupCommit: GroupCommit;
  positions: PositionRepository;
  locks: PositionLocks;
  engine: TradingEngine;
  processor: SignalProcessor;
  monitor: PositionMonitor;
  priceWaits: PriceWaits;
  /** Pause switches, risk limits and the daily-loss breaker per user and mode. */
  guardRails: GuardRails;
  /** The operator's own buys, through openPosition (src/trading/manual-buy.ts). */
  manual: ManualBuys;
  /** The operator's sales of a part of a position, through the exit path (src/trading/manual-sale.ts). */
  manualSales: ManualSales;
}

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  market: MarketServices;
  live: LiveTrading | null;
}

/** The trading engine: one execution path for every trade, behind per-mode executors. */
export function createTradingArea(config: Config, d: Deps, opts: ServiceOptions): TradingArea {
  const { database, clock, logger, events, metrics, market, live } = d;
  const signals = new SignalService(database, clock);
  // Small writes of concurrent requests and trades share one commit (src/db/group-commit.ts).
  // WAL checkpoints beside the event loop (src/db/wal-checkpointer.ts), looked at after every
  // group commit: many small commits checkpoint in small steps as SQLite's own threshold is passed.
  const walCheckpoints = new WalCheckpointer({ sqlite: database.sqlite, logger });
  const groupCommit = new GroupCommit(database, { afterCommit: () => walCheckpoints.poll() });
  const positions = new PositionRepository(database.sqlite);
  const locks = new PositionLocks();
  // Token screening and mint facts read over the live RPC; without SOLANA_RPC_URL only
  // requireSellable can be judged (docs/decisions.md "Live integration").
  // The demo market has no chain: its made-up tokens have no mint accounts to read.
  const mintInfo = config.DEMO_MARKET ? null : (live?.mintInfo ?? null);
  const screen = new TokenScreen({
    mintInfo,
    quotes: market.quotes,
    logger,
    clock,
    transferHookAllowlist: config.TOKEN_TRANSFER_HOOK_ALLOWLIST,
  });
  // Under SWAP_API=build a simulated swap pays live's own estimate for its route, read over the
  // live RPC (src/trading/simulation-priority-fee.ts); without one, the cap.
  const fees = simulationFeeModel(
    config,
    live && !config.DEMO_MARKET
      ? routePriorityFeeEstimate({
          rpc: live.rpc,
          clock,
          logger,
          setting: priorityFeeSettingOf(config),
          taker: config.SWAP_QUOTE_TAKER,
        })
      : undefined,
  );
  const executors: Partial<Record<"simulation" | "live", TradeExecutor>> = {
    ...(market.quotes.configured ? { simulation: new SimulationExecutor(market.quotes, fees, screen) } : {}),
    ...(live?.executor ? { live: live.executor } : {}),
    ...opts.executors,
  };
  const sqlite = database.sqlite;
  const commits = groupCommit;
  const guardRails = new GuardRails({ sqlite, clock, events, logger });
  guardRails.attach();
  const engine = new TradingEngine({
    sqlite,
    clock,
    logger,
    events,
    metrics,
    market,
    executors,
    positions,
    locks,
    mintInfo,
    commits,
    live: live?.settlement,
    gate: guardRails,
  });
  const processor = new SignalProcessor({
    sqlite,
    clock,
    logger,
    signals,
    positions,
    engine,
    commits,
    marketData: market.marketData,
    liveTradingEnabled: config.LIVE_TRADING_ENABLED,
    signalMaxAgeSeconds: config.SIGNAL_MAX_AGE_SECONDS,
    guardRails,
    sourceLimits: new CopyLimits(database),
  });
  // Why the monitor waits on a position: set by its ticks, shown with the position.
  const priceWaits = new PriceWaits();
  const monitor = new PositionMonitor({
    sqlite,
    clock,
    logger,
    events,
    positions,
    locks,
    engine,
    tokenPrices: market.tokenPrices,
    quotePricing: market.quotes.configured ? new QuotePricing({ quotes: market.quotes, logger }) : null,
    intervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    waits: priceWaits,
    // Held mints read again: a control that appears after the buy pauses the position.
    mintWatch: mintInfo
      ? new MintWatch({ mintInfo, logger, transferHookAllowlist: config.TOKEN_TRANSFER_HOOK_ALLOWLIST })
      : null,
    live: live ?? undefined,
    afterTick: () => guardRails.sweep(),
  });
  return {
    ...{ signals, walCheckpoints, groupCommit, positions, locks, engine, processor, monitor, priceWaits },
    guardRails,
    manual: new ManualBuys({
      ...{ database, clock, engine, guardRails, positions },
      liveTradingEnabled: config.LIVE_TRADING_ENABLED,
    }),
    manualSales: new ManualSales({ database, clock, engine, positions }),
  };
}
