import { BacktestService } from "./backtest/backtest-service.ts";
import { BacktestWorker } from "./backtest/backtest-worker.ts";
import { SignalSourceReport } from "./backtest/signal-source-report.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { BacktestRepository } from "./db/repositories/backtests.ts";
import { PriceBarRepository } from "./db/repositories/price-bars.ts";
import { PriceImpactRepository } from "./db/repositories/price-impacts.ts";
import { SignalRepository } from "./db/repositories/signals.ts";
import { StrategyLabSignalRepository } from "./db/repositories/strategy-lab-signals.ts";
import type { Logger } from "./logger.ts";
import { GECKOTERMINAL_LIMIT, GeckoTerminalClient } from "./market/geckoterminal.ts";
import { HttpClient } from "./market/http-client.ts";
import type { MarketServices } from "./market/index.ts";
import { type RateLimit, RateLimiter } from "./market/rate-limiter.ts";
import { HistoryImporter } from "./price-history/history-import.ts";
import { PriceRecorder } from "./price-history/recorder.ts";
import { SignalImporter } from "./signals/signal-import.ts";
import { flatSimulationPriorityFeeSol } from "./trading/rules/simulation-fees.ts";

// The strategy lab's parts, built once by createServices: price history (recorder,
// GeckoTerminal import), backtests (service, worker) and the signal repository they read.

export interface StrategyLab {
  bars: PriceBarRepository;
  signals: StrategyLabSignalRepository;
  backtests: BacktestService;
  worker: BacktestWorker;
  recorder: PriceRecorder;
  history: HistoryImporter;
  /** POST /trading-signals/import: stores past signals (never traded), queues their history. */
  importer: SignalImporter;
  /** GET /signal-sources/report. */
  report: SignalSourceReport;
  horizonMs: number;
}

export interface StrategyLabOptions {
  /** Pacing of HISTORY_DATA_URL calls (tests: none). */
  historyLimit?: RateLimit;
  timer?: Clock;
}

export function createStrategyLab(
  config: Config,
  deps: { database: DatabaseHandle; clock: Clock; logger: Logger; market: MarketServices },
  opts: StrategyLabOptions = {},
): StrategyLab {
  const { sqlite } = deps.database;
  const bars = new PriceBarRepository(sqlite);
  const signals = new StrategyLabSignalRepository(sqlite);
  const repo = new BacktestRepository(sqlite);
  const horizonMs = config.PRICE_HISTORY_DAYS * 86_400_000;
  const backtests = new BacktestService(repo, signals, deps.clock);
  const worker = new BacktestWorker({
    repo,
    service: backtests,
    bars,
    impacts: new PriceImpactRepository(sqlite),
    decimals: deps.market.decimals,
    clock: deps.clock,
    logger: deps.logger,
    priorityFeeSol: flatSimulationPriorityFeeSol(config),
    horizonMs,
  });
  const timer = opts.timer ?? deps.clock;
  // The demo market calls no outside source, GeckoTerminal's history included (PRODUCT.md §7).
  const gecko =
    config.HISTORY_DATA_URL && !config.DEMO_MARKET
      ? new GeckoTerminalClient(
          new HttpClient({
            service: "historyData",
            baseUrl: config.HISTORY_DATA_URL,
            timeoutMs: config.HTTP_TIMEOUT_MS,
            limiter: new RateLimiter(opts.historyLimit ?? GECKOTERMINAL_LIMIT, timer),
            timer,
            logger: deps.logger,
          }),
        )
      : null;
  const history = new HistoryImporter(gecko, bars, deps.logger);
  return {
    bars,
    signals,
    backtests,
    worker,
    importer: new SignalImporter({
      signals: new SignalRepository(sqlite),
      bars,
      history,
      clock: deps.clock,
      horizonMs,
    }),
    report: new SignalSourceReport({ signals, bars, clock: deps.clock }),
    recorder: new PriceRecorder({
      bars,
      tokenPrices: deps.market.tokenPrices,
      solPrice: deps.market.solPrice,
      clock: deps.clock,
      logger: deps.logger,
      horizonDays: config.PRICE_HISTORY_DAYS,
      intervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    }),
    history,
    horizonMs,
  };
}
