import type { AgentService } from "../agents/agent-service.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import {
  MarketTokenPriceLookup,
  StoredPositionPriceLookup,
  type TokenPriceLookup,
} from "../ledgers/token-price-lookup.ts";
import type { Logger } from "../logger.ts";
import type { MarketServices } from "../market/index.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Big } from "../money.ts";
import { createLiveTrading, type LiveTrading } from "../trading/live/index.ts";
import { LiveWalletRegistry } from "../wallets/live-wallet-registry.ts";
import { WalletService } from "../wallets/wallet-service.ts";
import type { ServiceOptions } from "./options.ts";

export interface WalletArea {
  liveWallets: LiveWalletRegistry;
  /** Live trading on Solana; null when SOLANA_RPC_URL is empty. */
  live: LiveTrading | null;
  wallets: WalletService;
  tokenPriceLookup: TokenPriceLookup;
}

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  market: MarketServices;
  agents: AgentService;
  /** The engine's SOL price (late-bound: the engine is built after live trading). */
  solUsd(): Promise<Big>;
}

/** Wallets and live trading: RPC, swap journal, executor, settlement, reconciler, deposit checks. */
export function createWalletArea(config: Config, d: Deps, opts: ServiceOptions): WalletArea {
  const liveWallets = opts.liveWallets ?? LiveWalletRegistry.empty();
  const live = createLiveTrading(
    config,
    {
      database: d.database,
      clock: d.clock,
      logger: d.logger,
      events: d.events,
      metrics: d.metrics,
      // Live swaps quote on the aggregator budget's priority lane (src/market/rate-limiter.ts).
      market: { ...d.market, quotes: d.market.liveQuotes ?? d.market.quotes },
      wallets: liveWallets,
      solUsd: d.solUsd,
    },
    opts.live,
  );
  const wallets = new WalletService(
    d.database,
    d.clock,
    d.logger,
    liveWallets,
    d.agents,
    opts.depositChecker ?? live?.deposits,
  );
  const tokenPriceLookup =
    opts.tokenPriceLookup ?? new MarketTokenPriceLookup(d.market, new StoredPositionPriceLookup(d.database));
  return { liveWallets, live, wallets, tokenPriceLookup };
}
