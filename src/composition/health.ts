import type { ApiKeyService } from "../auth/api-keys.ts";
import type { AccessTokenBlacklist } from "../auth/blacklist.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { CacheStores, cacheCheck, databaseCheck, queueCheck } from "../health/core-checks.ts";
import { HealthRegistry } from "../health/registry.ts";
import type { Logger } from "../logger.ts";
import type { MarketServices } from "../market/index.ts";
import type { SignalQueue } from "../signals/signal-queue.ts";

interface Deps {
  database: DatabaseHandle;
  logger: Logger;
  market: MarketServices;
  blacklist: AccessTokenBlacklist;
  apiKeys: ApiKeyService;
  signalQueue: SignalQueue;
  /** SIGNAL_QUEUE_MAX_LAG_SECONDS. */
  maxQueueLagSeconds: number;
  /** LIVE_TRADING_ENABLED, and whether SOLANA_RPC_URL is set. */
  liveTrading: { enabled: boolean; rpcConfigured: boolean };
}

/**
 * GET /health (SPEC; PRODUCT.md §6): the database is the one critical component (→ 503); the SOL
 * price stream adds "priceFeed", and any later check only degrades.
 */
export function createHealth(d: Deps): { health: HealthRegistry; caches: CacheStores } {
  const { market } = d;
  const health = new HealthRegistry((name, err) => d.logger.warn("health check failed", { check: name, error: err }));
  const caches = new CacheStores();
  caches.add({ name: "blacklist", size: () => d.blacklist.size });
  caches.add({ name: "apiKeys", size: () => d.apiKeys.verifiedSize });
  health.register("database", databaseCheck(d.database.sqlite), { critical: true });
  health.register(
    "cache",
    cacheCheck(() => caches.list()),
  );
  health.register("queue", queueCheck(d.signalQueue, d.maxQueueLagSeconds));
  if (market.solPrice.configured) health.register("priceFeed", () => market.solPrice.health());
  // The swap aggregator and the SOL price sources degrade /health while unreachable (read from
  // the last observation; the prober, never the request path, asks the sources).
  const status = market.status();
  for (const source of ["swapAggregator", "solPriceFeed", "priceNetwork"] as const) {
    if (status[source].configured) health.register(source, market.reachability.healthCheck(source));
  }
  // Live trading on without a node that answers cannot trade (issue 34): degraded, said in the message.
  if (d.liveTrading.enabled) {
    const rpc = market.reachability.healthCheck("solanaRpc");
    health.register("solanaRpc", () =>
      d.liveTrading.rpcConfigured
        ? rpc()
        : {
            status: "degraded",
            message: "LIVE_TRADING_ENABLED is true but SOLANA_RPC_URL is empty: no live trade can be sent",
          },
    );
  }
  return { health, caches };
}
