import { AgentService, initialSolText } from "./agents/agent-service.ts";
import type { OpenPositionSource } from "./agents/open-positions.ts";
import { AccountService } from "./auth/accounts.ts";
import { ApiKeyService } from "./auth/api-keys.ts";
import { AccessTokenBlacklist } from "./auth/blacklist.ts";
import { resolveJwtSecret } from "./auth/jwt-secret.ts";
import { type Argon2Cost, createPasswordHasher, type PasswordHasher } from "./auth/passwords.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { GroupCommit } from "./db/group-commit.ts";
import { eventNameLookup } from "./db/repositories/event-names.ts";
import { PositionRepository } from "./db/repositories/positions.ts";
import { PriceImpactRepository } from "./db/repositories/price-impacts.ts";
import { TradingAgentRepository } from "./db/repositories/trading-agents.ts";
import { WalCheckpointer } from "./db/wal-checkpointer.ts";
import { EventBus } from "./events/bus.ts";
import { CacheStores, cacheCheck, databaseCheck, queueCheck } from "./health/core-checks.ts";
import { HealthRegistry } from "./health/registry.ts";
import { AgentBalanceService } from "./ledgers/agent-balances.ts";
import { AgentTransactionService } from "./ledgers/agent-transactions.ts";
import { HistoricalSwapService } from "./ledgers/historical-swaps.ts";
import {
  MarketTokenPriceLookup,
  StoredPositionPriceLookup,
  type TokenPriceLookup,
} from "./ledgers/token-price-lookup.ts";
import { Lifecycle, type StopOptions } from "./lifecycle.ts";
import { createLogger, type Logger } from "./logger.ts";
import { createMarket, type MarketOptions, type MarketServices } from "./market/index.ts";
import { QuotePricing } from "./market/quote-pricing.ts";
import { openPositionsFromDatabase } from "./metrics/database-sources.ts";
import { createMetrics, type Metrics } from "./metrics/metrics.ts";
import { createNotifications, type NotificationOptions, type Notifications } from "./notifications/index.ts";
import { ImpactRecorder } from "./price-history/impact-recorder.ts";
import { SignalIntake } from "./signals/signal-intake.ts";
import { SignalQueue } from "./signals/signal-queue.ts";
import { SignalService } from "./signals/signal-service.ts";
import { createStrategyLab, type StrategyLab, type StrategyLabOptions } from "./strategy-lab.ts";
import type { TradeExecutor } from "./trading/executor.ts";
import { createLiveTrading, type LiveTrading, type LiveTradingOptions } from "./trading/live-trading.ts";
import { PriceWaits } from "./trading/monitor-prices.ts";
import { PositionLocks } from "./trading/position-locks.ts";
import { PositionMonitor } from "./trading/position-monitor.ts";
import { MarketPricedPositions, StoredOpenPositions } from "./trading/position-view.ts";
import { priorityFeeSetting, simulationPriorityFeeSol } from "./trading/rules/fees.ts";
import { SignalProcessor } from "./trading/signal-processor.ts";
import { SimulationExecutor } from "./trading/simulation-executor.ts";
import { TokenScreen } from "./trading/token-screen.ts";
import { TradingEngine } from "./trading/trading-engine.ts";
import { LiveWalletRegistry } from "./wallets/live-wallet-registry.ts";
import { type LiveDepositChecker, WalletService } from "./wallets/wallet-service.ts";

// The dependency container: built once by serve() (and by the test helper) and handed to the
// background workers and, through createAppDeps (src/http/deps.ts), to the HTTP app. It knows
// nothing of HTTP: the auth middleware and the rate limiters are built by the HTTP layer from it,
// so the dependency runs one way, http → services (test/structure/imports.test.ts holds it).

export interface Services {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  startedAt: number;
  passwords: PasswordHasher;
  signer: TokenSigner;
  blacklist: AccessTokenBlacklist;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  events: EventBus;
  signals: SignalService;
  /** The signal pipeline: POST /trading-signals → intake → queue → trading.processor. */
  signalQueue: SignalQueue;
  signalIntake: SignalIntake;
  /** Dependency checks behind GET /health: `health.register(name, check)`; see src/health/registry.ts. */
  health: HealthRegistry;
  /** In-memory stores the /health "cache" check counts; the HTTP layer adds its rate-limit windows. */
  caches: CacheStores;
  /** Prometheus metrics behind GET /metrics: `metrics.trades.inc({mode, side, outcome})`; see src/metrics/metrics.ts. */
  metrics: Metrics;
  /**
   * The outside market (src/market/types.ts): solPrice, tokenPrices, decimals, quotes, marketData,
   * whales, status(). The SOL price stream starts with the start hooks (serve()), never here.
   */
  market: MarketServices;
  /** Agents and their trading configuration (src/agents). */
  agents: AgentService;
  /** WALLET_N keys, in memory only; public keys, has(), signTransaction() (src/wallets). */
  liveWallets: LiveWalletRegistry;
  wallets: WalletService;
  /** Per-agent ledgers (src/ledgers); credit/debit for trades: src/ledgers/balance-ledger.ts. */
  agentBalances: AgentBalanceService;
  agentTransactions: AgentTransactionService;
  historicalSwaps: HistoricalSwapService;
  /** Open positions as the spec shows them; the trading engine replaces the stored-price default. */
  openPositions: OpenPositionSource;
  /** The trading engine (src/trading): execution path, signal processing, position monitor. */
  trading: {
    positions: PositionRepository;
    locks: PositionLocks;
    engine: TradingEngine;
    processor: SignalProcessor;
    monitor: PositionMonitor;
    /** Live trading on Solana (src/trading/live-*.ts); null when SOLANA_RPC_URL is empty. */
    live: LiveTrading | null;
  };
  /** priceSol of GET /agent-balances. */
  tokenPriceLookup: TokenPriceLookup;
  /** Price history, history import and backtests (src/strategy-lab.ts, issue 17). */
  strategyLab: StrategyLab;
  /** Webhooks, notification preferences and the Telegram bot (src/notifications, issue 18). */
  notifications: Notifications;
  /** WAL checkpoints in a worker thread once the WAL needs one (started by start()). */
  walCheckpoints: WalCheckpointer;
  /**
   * Registers a background worker's start (monitor loop, signal recovery, price stream). serve()
   * runs these once it listens; tests never do, they drive ticks directly. See src/lifecycle.ts.
   */
  onStart(fn: () => unknown, label?: string): void;
  /**
   * Registers a drain/close step for shutdown (finish trades in flight, stop the monitor, close
   * streams). Steps run in reverse registration order within one time bound (PRODUCT.md §6).
   */
  onShutdown(fn: () => unknown, label?: string): void;
  /** Runs the start hooks once (serve() only). */
  start(): Promise<void>;
  /** Runs the shutdown hooks once, then clears timers; the database is closed by its owner. */
  stop(opts?: StopOptions): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  passwordCost?: Argon2Cost;
  /** Extra strings the logger must never print (wallet secrets, the JWT secret). */
  secrets?: () => readonly string[];
  /** Market adapter tuning (rate limits, timer, SOL stream timings): tests and the benchmark. */
  market?: MarketOptions;
  /** Live wallets parsed from WALLET_N (LiveWalletRegistry.fromEnv); none when absent. */
  liveWallets?: LiveWalletRegistry;
  /** Seams for later issues and tests: open positions with market data, live deposit checks. */
  openPositions?: OpenPositionSource;
  tokenPriceLookup?: TokenPriceLookup;
  depositChecker?: LiveDepositChecker;
  /** Trade executors by mode; simulation defaults to quotes from the swap aggregator. */
  executors?: Partial<Record<"simulation" | "live", TradeExecutor>>;
  /** Live trading tuning (confirmation polling, RPC timeout): tests. */
  live?: LiveTradingOptions;
  strategyLab?: StrategyLabOptions;
  /** Webhook DNS resolution and sender: tests. */
  notifications?: NotificationOptions;
}

export function createServices(config: Config, database: DatabaseHandle, opts: ServiceOptions = {}): Services {
  // 1. Foundations: clock, logger (with every secret it must scrub), lifecycle hooks.
  const clock = opts.clock ?? systemClock;
  const jwtSecret = resolveJwtSecret(config.JWT_SECRET, database.path);
  const secretStrings = [Buffer.from(jwtSecret).toString("hex"), ...(config.JWT_SECRET ? [config.JWT_SECRET] : [])];
  const logger =
    opts.logger ??
    createLogger({
      level: config.LOG_LEVEL,
      // WALLET_N secrets (every text form) are scrubbed from every line as a last defence.
      secrets: () => [
        ...secretStrings,
        ...(config.TELEGRAM_BOT_TOKEN ? [config.TELEGRAM_BOT_TOKEN] : []),
        ...(opts.secrets?.() ?? []),
        ...(opts.liveWallets?.redactionStrings() ?? []),
      ],
    });
  const lifecycle = new Lifecycle(logger);

  // 2. Accounts and credentials (src/auth). The HTTP auth middleware is built from these in src/http/deps.ts.
  const passwords = createPasswordHasher(opts.passwordCost);
  const signer = new TokenSigner(jwtSecret, clock);
  const blacklist = new AccessTokenBlacklist(database.sqlite, clock);
  const accounts = new AccountService(database, passwords, signer, blacklist, clock, logger);
  const apiKeys = new ApiKeyService(database, clock);

  // 3. Events, market connections (PRODUCT.md §5: nothing connects until serve() runs the start
  //    hooks), metrics.
  const events = new EventBus(() => clock.now(), undefined, eventNameLookup(database.sqlite));
  // Each quote's price impact is kept beside the price bars for backtests (src/price-history/impact-recorder.ts).
  const impacts = new ImpactRecorder(new PriceImpactRepository(database.sqlite), clock, logger);
  const market = createMarket(config, { clock, logger, events, onQuote: (q) => impacts.observe(q) }, opts.market);
  const metrics = createMetrics(clock, {
    openPositions: openPositionsFromDatabase(database.sqlite),
    solPrice: () => market.solPrice.snapshot(),
  });

  // 4. Agents, wallets and ledgers (issue 3).
  const agents = new AgentService(database, clock, logger, initialSolText(config.SIMULATION_INITIAL_SOL));
  const liveWallets = opts.liveWallets ?? LiveWalletRegistry.empty();
  // Live trading (issue 6): RPC, swap journal, executor, settlement, reconciler, deposit checks.
  const live = createLiveTrading(
    config,
    {
      database,
      clock,
      logger,
      events,
      metrics,
      // Live swaps quote on the aggregator budget's priority lane (src/market/rate-limiter.ts).
      market: { ...market, quotes: market.liveQuotes ?? market.quotes },
      wallets: liveWallets,
      solUsd: () => engine.solUsd(),
    },
    opts.live,
  );
  const wallets = new WalletService(
    database,
    clock,
    logger,
    liveWallets,
    agents,
    opts.depositChecker ?? live?.deposits,
  );
  const tokenPriceLookup =
    opts.tokenPriceLookup ?? new MarketTokenPriceLookup(market, new StoredPositionPriceLookup(database));

  // 5. The trading engine (issue 5): one execution path for every trade, behind per-mode executors.
  const signals = new SignalService(database, clock);
  // Small writes of concurrent requests and trades share one commit (src/db/group-commit.ts).
  // WAL checkpoints beside the event loop (src/db/wal-checkpointer.ts), looked at after every
  // group commit: many small commits checkpoint in small steps as SQLite's own threshold is passed.
  const walCheckpoints = new WalCheckpointer({ sqlite: database.sqlite, logger });
  const groupCommit = new GroupCommit(database, { afterCommit: () => walCheckpoints.poll() });
  const positionStore = new PositionRepository(database.sqlite);
  const locks = new PositionLocks();
  // Token screening and mint facts read over the live RPC (issue 15); without SOLANA_RPC_URL only
  // requireSellable can be judged (docs/decisions.md "Live integration").
  // The demo market has no chain: its made-up tokens have no mint accounts to read.
  const mintInfo = config.DEMO_MARKET ? null : (live?.mintInfo ?? null);
  const screen = new TokenScreen({ mintInfo, quotes: market.quotes, logger, clock });
  const executors: Partial<Record<"simulation" | "live", TradeExecutor>> = {
    ...(market.quotes.configured
      ? {
          simulation: new SimulationExecutor(
            market.quotes,
            simulationPriorityFeeSol(config.SIMULATION_PRIORITY_FEE_SOL, priorityFeeSetting(config.LIVE_PRIORITY_FEE)),
            screen,
          ),
        }
      : {}),
    ...(live?.executor ? { live: live.executor } : {}),
    ...opts.executors,
  };
  const engine = new TradingEngine({
    sqlite: database.sqlite,
    clock,
    logger,
    events,
    metrics,
    market,
    executors,
    positions: positionStore,
    locks,
    live: live?.settlement,
    commits: groupCommit,
    mintInfo,
  });
  const processor = new SignalProcessor({
    sqlite: database.sqlite,
    clock,
    logger,
    signals,
    positions: positionStore,
    engine,
    marketData: market.marketData,
    liveTradingEnabled: config.LIVE_TRADING_ENABLED,
    commits: groupCommit,
  });
  // Why the monitor waits on a position: set by its ticks, shown with the position.
  const priceWaits = new PriceWaits();
  const monitor = new PositionMonitor({
    sqlite: database.sqlite,
    clock,
    logger,
    events,
    positions: positionStore,
    locks,
    engine,
    tokenPrices: market.tokenPrices,
    quotePricing: market.quotes.configured ? new QuotePricing({ quotes: market.quotes, logger }) : null,
    intervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    waits: priceWaits,
    live: live ?? undefined,
  });
  const strategyLab = createStrategyLab(config, { database, clock, logger, market }, opts.strategyLab);
  const openPositions =
    opts.openPositions ??
    (market.tokenPrices.configured
      ? new MarketPricedPositions(positionStore, market.tokenPrices, market.solPrice, logger, priceWaits)
      : new StoredOpenPositions(positionStore, priceWaits));
  const notifications = createNotifications(
    {
      config,
      database,
      clock,
      logger,
      events,
      sealingSecret: jwtSecret,
      agents,
      openPositions,
      positions: positionStore,
      engine,
    },
    opts.notifications,
  );

  // 6. The signal pipeline: POST /trading-signals → intake → queue → processor. Each stage is given
  //    the next one when it is built, so it is built from its end: the processor (above), the
  //    queue that feeds it, the intake that fills the queue. Nothing is re-bound later.
  const signalQueue = new SignalQueue((id) => processor.process(id), logger);
  const signalAgents = new TradingAgentRepository(database.sqlite);
  const signalIntake = new SignalIntake({
    events,
    queue: signalQueue,
    logger,
    signals,
    commits: groupCommit,
    recordKeyUse: (id) => apiKeys.recordUse(id),
    hasAgents: (userId) => signalAgents.hasAgents(userId),
    recovery: { maxAgeSeconds: config.SIGNAL_MAX_AGE_SECONDS },
  });
  // PRODUCT.md §6 "signals received": every signal accepted by POST /trading-signals (not replays).
  signalIntake.onAccepted(() => metrics.signalsReceived.inc());

  // 7. GET /health (SPEC; PRODUCT.md §6): the database is the one critical component (→ 503); the
  //    SOL price stream adds "priceFeed", and any later check only degrades.
  const health = new HealthRegistry((name, err) => logger.warn("health check failed", { check: name, error: err }));
  const caches = new CacheStores();
  caches.add({ name: "blacklist", size: () => blacklist.size });
  caches.add({ name: "apiKeys", size: () => apiKeys.verifiedSize });
  health.register("database", databaseCheck(database.sqlite), { critical: true });
  health.register(
    "cache",
    cacheCheck(() => caches.list()),
  );
  health.register("queue", queueCheck(signalQueue));
  if (market.solPrice.configured) health.register("priceFeed", () => market.solPrice.health());
  // Issue 13: the swap aggregator and the SOL price sources degrade /health while unreachable
  // (read from the last observation; the prober, never the request path, asks the sources).
  const status = market.status();
  for (const source of ["swapAggregator", "solPriceFeed", "priceNetwork"] as const) {
    if (status[source].configured) health.register(source, market.reachability.healthCheck(source));
  }

  // 8. Background workers. serve() runs the start hooks in this order once it listens; shutdown
  //    runs in reverse (what started last stops first), so the timers go after the workers drain.
  const minute = 60_000;
  const timers = [setInterval(() => blacklist.sweep(), 5 * minute)];
  for (const t of timers) t.unref?.();
  // WAL checkpoints: registered first, so its shutdown step runs last, after every writer stopped.
  lifecycle.onStart(() => walCheckpoints.start(), "WAL checkpoints");
  lifecycle.onShutdown(() => walCheckpoints.stop(), "WAL checkpoints");
  // Normally done already: serve() recovers before it opens the door (a no-op then).
  lifecycle.onStart(() => signalIntake.ensureRecovered(), "signal recovery");
  lifecycle.onShutdown(() => signalQueue.stop(), "signal queue");
  lifecycle.onShutdown(() => {
    for (const t of timers) clearInterval(t);
  }, "timers");
  lifecycle.onStart(() => market.solPrice.start(), "SOL price feed");
  lifecycle.onStart(() => market.prober.start(), "reachability probes");
  lifecycle.onShutdown(() => market.stop(), "SOL price feed");
  lifecycle.onStart(() => monitor.start(), "position monitor");
  // Shutdown runs in reverse: the monitor's last tick ends before the closes it started are awaited.
  if (live) lifecycle.onShutdown(() => live.closer.stop(), "token account closes");
  lifecycle.onShutdown(() => monitor.stop(), "position monitor");
  lifecycle.onStart(() => strategyLab.recorder.start(), "price history recorder");
  lifecycle.onShutdown(() => strategyLab.recorder.stop(), "price history recorder");
  lifecycle.onStart(() => strategyLab.worker.start(), "backtest worker");
  lifecycle.onShutdown(() => strategyLab.worker.stop(), "backtest worker");
  lifecycle.onStart(() => notifications.start(), "notifications");
  lifecycle.onShutdown(() => notifications.stop(), "notifications");
  lifecycle.onStart(() => strategyLab.history.start(), "history import");
  lifecycle.onShutdown(() => strategyLab.history.stop(), "history import");

  return {
    config,
    database,
    clock,
    logger,
    startedAt: clock.now(),
    passwords,
    signer,
    blacklist,
    accounts,
    apiKeys,
    events,
    signals,
    signalQueue,
    signalIntake,
    health,
    caches,
    metrics,
    market,
    agents,
    liveWallets,
    wallets,
    agentBalances: new AgentBalanceService(database, clock, logger, tokenPriceLookup),
    agentTransactions: new AgentTransactionService(database, clock, logger),
    historicalSwaps: new HistoricalSwapService(database, clock, logger),
    openPositions,
    trading: { positions: positionStore, locks, engine, processor, monitor, live },
    tokenPriceLookup,
    strategyLab,
    notifications,
    walCheckpoints,
    onStart: (fn, label) => lifecycle.onStart(fn, label),
    onShutdown: (fn, label) => lifecycle.onShutdown(fn, label),
    start: () => lifecycle.start(),
    stop: (stopOpts) => lifecycle.stop(stopOpts),
  };
}
