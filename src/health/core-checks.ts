import { type SqliteHandle, selectOne } from "../db/client.ts";
import { type HealthCheck, roundMs } from "./registry.ts";

// The three components SPEC's /health names (PRODUCT.md §6): database (SELECT 1 latency), cache
// (the in-memory stores), queue (signal processing; the engine registers the real one).

/** SELECT 1 on the service's connection; throws (→ unhealthy) once the database is closed. */
export function databaseCheck(sqlite: SqliteHandle["sqlite"]): HealthCheck {
  return () => {
    const started = performance.now();
    if (!selectOne({ sqlite })) return { status: "unhealthy", message: "SELECT 1 returned no row" };
    return { status: "healthy", latency: roundMs(performance.now() - started) };
  };
}

/** An in-memory store the cache check reads (token blacklist, rate-limit windows, price caches). */
export interface CacheStore {
  name: string;
  size(): number;
}

/**
 * The stores the cache check counts. Each part of the service adds its own (the token blacklist in
 * services.ts, the rate-limit windows where the HTTP layer builds them); a name added again
 * replaces the earlier store, as HealthRegistry.register does.
 */
export class CacheStores {
  private readonly stores = new Map<string, CacheStore>();

  add(store: CacheStore): void {
    this.stores.set(store.name, store);
  }

  list(): readonly CacheStore[] {
    return [...this.stores.values()];
  }
}

/**
 * The cache is the process's own memory: it is healthy whenever its stores answer. It reports
 * how many entries they hold, which is what grows if a sweep stops working.
 */
export function cacheCheck(stores: () => readonly CacheStore[]): HealthCheck {
  return () => {
    let entries = 0;
    for (const store of stores()) entries += store.size();
    return { status: "healthy", entries };
  };
}

/** What the queue check reads from the signal queue (src/signals/signal-queue.ts). */
export interface QueueProbe {
  readonly depth: number;
  readonly isRunning: boolean;
  /** Age of the oldest undecided signal, seconds. */
  readonly lagSeconds: number;
}

/**
 * Signal processing: how many signals wait (the ones in flight included), whether a worker is
 * busy, and how far behind the decisions are (lagSeconds). Above `maxLagSeconds`
 * (SIGNAL_QUEUE_MAX_LAG_SECONDS) the queue is degraded: signals are decided later than a user
 * expects, and POST /trading-signals refuses new ones until it catches up.
 */
export function queueCheck(queue: QueueProbe, maxLagSeconds: number): HealthCheck {
  return () => {
    const lagSeconds = Math.round(queue.lagSeconds * 1000) / 1000;
    const report = { depth: queue.depth, worker: queue.isRunning ? "busy" : "idle", lagSeconds };
    if (lagSeconds <= maxLagSeconds) return { status: "healthy", ...report };
    return {
      status: "degraded",
      message: `Signals wait ${lagSeconds} s to be decided (limit ${maxLagSeconds} s)`,
      ...report,
    };
  };
}
