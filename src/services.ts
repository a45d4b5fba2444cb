import { AgentService, initialSolText } from "./agents/agent-service.ts";
import type { OpenPositionSource } from "./agents/open-positions.ts";
import { PortfolioSnapshotter } from "./agents/portfolio-history.ts";
import { AuditLog } from "./audit/audit-log.ts";
import { AccountService } from "./auth/accounts.ts";
import { ApiKeyService } from "./auth/api-keys.ts";
import { AccessTokenBlacklist } from "./auth/blacklist.ts";
import { createPasswordHasher, type PasswordHasher } from "./auth/passwords.ts";
import { TokenSigner } from "./auth/tokens.ts";
import { TwoFactorService } from "./auth/two-factor.ts";
import type { Clock } from "./clock.ts";
import { createFoundations } from "./composition/foundations.ts";
import { createHealth } from "./composition/health.ts";
import { createHeartbeat } from "./composition/heartbeat.ts";
import { watchLogins } from "./composition/login-watch.ts";
import type { ServiceOptions } from "./composition/options.ts";
import { createReplication } from "./composition/replication.ts";
import { createSignalPipeline } from "./composition/signal-pipeline.ts";
import { createTradingArea } from "./composition/trading.ts";
import { createWalletArea } from "./composition/wallets.ts";
import { registerWorkers } from "./composition/workers.ts";
import type { Config } from "./config.ts";
import { type CopyTrading, createCopyTrading } from "./copytrading/index.ts";
import type { DatabaseHandle } from "./db/client.ts";
import type { Replicator } from "./db/replication/replicator.ts";
import { eventNameLookup } from "./db/repositories/event-names.ts";
import type { PositionRepository } from "./db/repositories/positions.ts";
import { PriceImpactRepository } from "./db/repositories/price-impacts.ts";
import type { WalCheckpointer } from "./db/wal-checkpointer.ts";
import { EventBus } from "./events/bus.ts";
import type { CacheStores } from "./health/core-checks.ts";
import type { Heartbeat } from "./health/heartbeat.ts";
import type { HealthRegistry } from "./health/registry.ts";
import { AgentBalanceService } from "./ledgers/agent-balances.ts";
import { AgentTransactionService } from "./ledgers/agent-transactions.ts";
import { HistoricalSwapService } from "./ledgers/historical-swaps.ts";
import type { TokenPriceLookup } from "./ledgers/token-price-lookup.ts";
import type { StopOptions } from "./lifecycle.ts";
import type { Logger } from "./logger.ts";
import { createMarket, type MarketServices } from "./market/index.ts";
import { openPositionsFromDatabase } from "./metrics/database-sources.ts";
import { createMetrics, type Metrics } from "./metrics/metrics.ts";
import { createNotifications, type Notifications } from "./notifications/index.ts";
import { SecretBox } from "./notifications/secret-box.ts";
import { ImpactRecorder } from "./price-history/impact-recorder.ts";
import { SignalHookService } from "./signals/signal-hooks.ts";
import type { SignalIntake } from "./signals/signal-intake.ts";
import type { SignalQueue } from "./signals/signal-queue.ts";
import type { SignalService } from "./signals/signal-service.ts";
import { createStrategyLab, type StrategyLab } from "./strategy-lab.ts";
import type { GuardRails } from "./trading/guard-rails.ts";
import type { LiveTrading } from "./trading/live/index.ts";
import type { ManualBuys } from "./trading/manual-buy.ts";
import type { ManualSales } from "./trading/manual-sale.ts";
import type { PositionLocks } from "./trading/position-locks.ts";
import type { PositionMonitor } from "./trading/position-monitor.ts";
import { MarketPricedPositions, StoredOpenPositions } from "./trading/position-view.ts";
import type { SignalProcessor } from "./trading/signal-processor.ts";
import type { TradingEngine } from "./trading/trading-engine.ts";
import type { LiveWalletRegistry } from "./wallets/live-wallet-registry.ts";
import type { WalletService } from "./wallets/wallet-service.ts";

// The dependency container: built once by serve() (and by the test helper) and handed to the
// background workers and, through createAppDeps (src/http/deps.ts), to the HTTP app. It knows
// nothing of HTTP: the auth middleware and the rate limiters are built by the HTTP layer from it,
// so the dependency runs one way, http → services (test/structure/imports.test.ts holds it).

export type { ServiceOptions };

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
  /** The second factor: setup, enable, disable, and the check login makes (src/auth/two-factor.ts). */
  twoFactor: TwoFactorService;
  /** The append-only audit log: `audit.record({userId, action, actor, ...})` (src/audit/audit-log.ts). */
  audit: AuditLog;
  /** HEARTBEAT_URL's push heartbeat (src/health/heartbeat.ts), or null when it is not set. */
  heartbeat: Heartbeat | null;
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
  /** Account value per user and mode every 5 minutes (GET /portfolio/history). */
  portfolioHistory: PortfolioSnapshotter;
  /** The trading engine (src/trading): execution path, signal processing, position monitor. */
  trading: {
    positions: PositionRepository;
    locks: PositionLocks;
    engine: TradingEngine;
    processor: SignalProcessor;
    monitor: PositionMonitor;
    /** Live trading on Solana (src/trading/live-*.ts); null when SOLANA_RPC_URL is empty. */
    live: LiveTrading | null;
    /** Pause switches, risk limits and the daily-loss breaker per user and mode (src/trading/guard-rails.ts). */
    guardRails: GuardRails;
    /** The operator's own buys, through the engine's openPosition (src/trading/manual-buy.ts). */
    manual: ManualBuys;
    /** The operator's sales of a part of a position (src/trading/manual-sale.ts). */
    manualSales: ManualSales;
  };
  /** priceSol of GET /agent-balances. */
  tokenPriceLookup: TokenPriceLookup;
  /** Price history, history import and backtests (src/strategy-lab.ts). */
  strategyLab: StrategyLab;
  /** Webhooks, notification preferences and the Telegram bot (src/notifications). */
  notifications: Notifications;
  /** Wallet watches and the watcher that turns their trades into signals (src/copytrading). */
  copyTrading: CopyTrading;
  /** Signal hooks: URLs with their own secret for TradingView alerts (src/signals/signal-hooks.ts). */
  signalHooks: SignalHookService;
  /** WAL checkpoints in a worker thread once the WAL needs one (started by start()). */
  walCheckpoints: WalCheckpointer;
  /** Litestream when REPLICA_URL is set (src/composition/replication.ts), else null. */
  replication: Replicator | null;
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

export function createServices(config: Config, database: DatabaseHandle, opts: ServiceOptions = {}): Services {
  const { clock, jwtSecret, logger, lifecycle } = createFoundations(config, database, opts);
  // Accounts and credentials (src/auth). The HTTP auth middleware is built from these in src/http/deps.ts.
  const passwords = createPasswordHasher(opts.passwordCost);
  const signer = new TokenSigner(jwtSecret, clock);
  const blacklist = new AccessTokenBlacklist(database.sqlite, clock);
  const audit = new AuditLog(database.db, clock, logger);
  // The TOTP secrets are sealed like webhook secrets, under their own derived key.
  const twoFactor = new TwoFactorService(database.db, new SecretBox(jwtSecret, "totp-secrets"), clock);
  const accounts = new AccountService(database, passwords, signer, blacklist, clock, logger, twoFactor);
  const apiKeys = new ApiKeyService(database, clock);
  // Events, market connections (PRODUCT.md §5: nothing connects until serve() runs the start hooks), metrics.
  const events = new EventBus(() => clock.now(), undefined, eventNameLookup(database.sqlite));
  // Each quote's price impact is kept beside the price bars for backtests (src/price-history/impact-recorder.ts).
  const impacts = new ImpactRecorder(new PriceImpactRepository(database.sqlite), clock, logger);
  const market = createMarket(config, { clock, logger, events, onQuote: (q) => impacts.observe(q) }, opts.market);
  const metrics = createMetrics(clock, {
    openPositions: openPositionsFromDatabase(database.sqlite),
    solPrice: () => market.solPrice.snapshot(),
    signalQueueLag: () => pipeline.signalQueue.lagSeconds,
  });
  const agents = new AgentService(database, clock, logger, initialSolText(config.SIMULATION_INITIAL_SOL));
  const core = { database, clock, logger, events, metrics, market };
  const walletArea = createWalletArea(config, { ...core, agents, solUsd: () => trading.engine.solUsd() }, opts);
  const { live } = walletArea;
  const trading = createTradingArea(config, { ...core, live }, opts);
  const strategyLab = createStrategyLab(config, { database, clock, logger, market }, opts.strategyLab);
  const openPositions =
    opts.openPositions ??
    (market.tokenPrices.configured
      ? new MarketPricedPositions(trading.positions, market.tokenPrices, market.solPrice, logger, trading.priceWaits)
      : new StoredOpenPositions(trading.positions, trading.priceWaits));
  const notifications = createNotifications(
    {
      ...{ config, database, clock, logger, events, agents, openPositions, engine: trading.engine },
      guardRails: trading.guardRails,
      audit,
      manual: trading.manual,
      sealingSecret: jwtSecret,
      positions: trading.positions,
    },
    opts.notifications,
  );
  watchLogins({ accounts, twoFactor, audit, events, clock });
  const pipeline = createSignalPipeline({
    ...core,
    apiKeys,
    ...trading,
  });
  const { health, caches } = createHealth({
    ...{ database, logger, market, blacklist, apiKeys, ...pipeline },
    maxQueueLagSeconds: config.SIGNAL_QUEUE_MAX_LAG_SECONDS,
    liveTrading: { enabled: config.LIVE_TRADING_ENABLED, rpcConfigured: config.SOLANA_RPC_URL !== "" },
  });
  const replication = createReplication(config, { database, clock, logger, health, metrics, events });
  registerWorkers(lifecycle, {
    ...{ config, database, blacklist, market, live, strategyLab, notifications, replication, audit },
    ...trading,
    ...pipeline,
  });
  const heartbeat = createHeartbeat({
    ...{ config, database, clock, logger, lifecycle, monitor: trading.monitor },
    resolver: opts.notifications?.resolver,
  });
  const copyTrading = createCopyTrading(config, { ...core, live, signalIntake: pipeline.signalIntake });
  const signalHooks = new SignalHookService(database, {
    ...{ clock, intake: pipeline.signalIntake, signals: trading.signals, registry: metrics.registry },
    baseUrl: config.PUBLIC_BASE_URL,
  });
  const portfolioHistory = new PortfolioSnapshotter({
    // Marked at the prices the monitor stored last (each MONITOR_INTERVAL_SECONDS): no market call of its own.
    ...{ database, clock, logger, positions: new StoredOpenPositions(trading.positions, trading.priceWaits) },
    agentIdsOf: (userId) => agents.agentIdsOf(userId),
    solUsdPrice: () => market.solPrice.current()?.price ?? null,
  });
  lifecycle.onStart(() => portfolioHistory.start(), "portfolio history");
  lifecycle.onShutdown(() => portfolioHistory.stop(), "portfolio history");
  lifecycle.onStart(() => copyTrading.watcher.start(), "copy trading");
  lifecycle.onShutdown(() => copyTrading.watcher.stop(), "copy trading");

  return {
    ...{ config, database, clock, logger, startedAt: clock.now(), passwords, signer, blacklist, accounts, apiKeys },
    twoFactor,
    audit,
    heartbeat,
    ...{ events, signals: trading.signals, ...pipeline, health, caches, metrics, market, agents, ...walletArea },
    portfolioHistory,
    agentBalances: new AgentBalanceService(database, clock, logger, walletArea.tokenPriceLookup),
    agentTransactions: new AgentTransactionService(database, clock, logger),
    historicalSwaps: new HistoricalSwapService(database, clock, logger),
    openPositions,
    trading: { ...trading, live },
    strategyLab,
    notifications,
    copyTrading,
    signalHooks,
    walCheckpoints: trading.walCheckpoints,
    replication,
    onStart: (fn, label) => lifecycle.onStart(fn, label),
    onShutdown: (fn, label) => lifecycle.onShutdown(fn, label),
    start: () => lifecycle.start(),
    stop: (stopOpts) => lifecycle.stop(stopOpts),
  };
}
