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
}

/**
 * Signal processing: how many signals wait (the one in flight included) and whether the worker is
 * busy or idle. The worker is started on demand by enqueue, so an idle worker is a live one.
 */
export function queueCheck(queue: QueueProbe): HealthCheck {
  return () => ({ status: "healthy", depth: queue.depth, worker: queue.isRunning ? "busy" : "idle" });
}
