import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { DemoCopyWallets } from "../market/demo/copy-wallets.ts";
import { pubsubUrl, SolanaLogsStream } from "../market/solana-pubsub.ts";
import type { MarketDataProvider } from "../market/types.ts";
import { RpcWalletActivity } from "../market/wallet-activity.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { SignalIntake } from "../signals/signal-intake.ts";
import type { LiveTrading } from "../trading/live/index.ts";
import { dexProgramSet } from "./dex-programs.ts";
import { WatchGroupService } from "./groups.ts";
import { createCopyTradingMetrics } from "./metrics.ts";
import { WalletWatchService } from "./watch-service.ts";
import { WalletWatcher } from "./watcher.ts";

// Copy trading wired together (PRODUCT.md §7): the watches API's service and the watcher.
// The watcher reads the chain through the live path's RPC client, so its requests count in the
// one RPC budget (src/market/rpc-budget.ts); on the demo market it follows synthetic wallets.

export interface CopyTrading {
  watches: WalletWatchService;
  groups: WatchGroupService;
  watcher: WalletWatcher;
}

export type CopyTradingConfig = Pick<
  Config,
  | "DEMO_MARKET"
  | "WALLET_WATCH_MAX"
  | "WALLET_WATCH_INTERVAL_SECONDS"
  | "WALLET_WATCH_MAX_AGE_SECONDS"
  | "WALLET_WATCH_EXTRA_PROGRAMS"
  | "SOLANA_WS_URL"
  | "SOLANA_RPC_URL"
>;

export interface CopyTradingDeps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  events: Pick<EventBus, "publish">;
  signalIntake: SignalIntake;
  market: { marketData: MarketDataProvider };
  live: LiveTrading | null;
}

export function createCopyTrading(config: CopyTradingConfig, d: CopyTradingDeps): CopyTrading {
  const watches = new WalletWatchService(d.database, d.clock, config.WALLET_WATCH_MAX);
  const source = config.DEMO_MARKET
    ? new DemoCopyWallets(d.clock)
    : d.live
      ? new RpcWalletActivity(d.live.rpc, d.live.rpcBudget)
      : null;
  const wsUrl = config.DEMO_MARKET || !d.live ? null : pubsubUrl(config.SOLANA_WS_URL, config.SOLANA_RPC_URL);
  const groups = new WatchGroupService(d.database, d.clock);
  const watcher = new WalletWatcher({
    groups,
    database: d.database,
    watches: watches.rows,
    source,
    intake: d.signalIntake,
    marketData: d.market.marketData,
    clock: d.clock,
    logger: d.logger,
    events: d.events,
    metrics: createCopyTradingMetrics(d.metrics.registry),
    intervalSeconds: config.WALLET_WATCH_INTERVAL_SECONDS,
    maxAgeSeconds: config.WALLET_WATCH_MAX_AGE_SECONDS,
    dexPrograms: dexProgramSet(config.WALLET_WATCH_EXTRA_PROGRAMS),
    stream: wsUrl ? new SolanaLogsStream({ url: wsUrl, logger: d.logger }) : null,
  });
  return { watches, groups, watcher };
}
