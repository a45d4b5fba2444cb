import type { Context, Env, MiddlewareHandler } from "hono";
import type { Clock } from "../clock.ts";
import { RateLimitError } from "../errors.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (≥ 1 when refused). */
  resetSeconds: number;
}

/**
 * Sliding-window log limiter: a key may make `limit` requests in any `windowMs`. Each key keeps
 * at most `limit` timestamps, and sweep() drops keys whose window has emptied, so memory stays
 * bounded by the number of keys active in the last window.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  hit(key: string): RateDecision {
    const now = this.clock.now();
    if (now - this.lastSweep > this.windowMs) this.sweep();
    const floor = now - this.windowMs;
    let log = this.hits.get(key);
    if (!log) {
      log = [];
      this.hits.set(key, log);
    }
    let drop = 0;
    while (drop < log.length && (log[drop] as number) <= floor) drop++;
    if (drop) log.splice(0, drop);
    if (log.length >= this.limit) {
      const oldest = log[0] as number;
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
      };
    }
    log.push(now);
    const oldest = log[0] as number;
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.limit - log.length,
      resetSeconds: Math.max(0, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  /**
   * Seconds until `key` may be counted again, 0 when a hit now would be allowed; counts nothing
   * (a signal hook asks it of an address before looking the token up).
   */
  blockedFor(key: string): number {
    const log = this.hits.get(key);
    if (!log) return 0;
    const floor = this.clock.now() - this.windowMs;
    const live = log.filter((t) => t > floor);
    if (live.length < this.limit) return 0;
    return Math.max(1, Math.ceil(((live[0] as number) + this.windowMs - this.clock.now()) / 1000));
  }

  sweep(): void {
    const now = this.clock.now();
    this.lastSweep = now;
    const floor = now - this.windowMs;
    for (const [key, log] of this.hits) {
      if (log.length === 0 || (log[log.length - 1] as number) <= floor) this.hits.delete(key);
    }
  }

  /** Number of keys held; exposed for the memory-bound test. */
  get size(): number {
    return this.hits.size;
  }
}

/** Applies a limiter, sets RateLimit-* headers, and answers 429 through the one error handler. */
export function rateLimit<E extends Env>(
  limiter: SlidingWindowLimiter,
  keyOf: (c: Context<E>) => string,
): MiddlewareHandler<E> {
  return async (c, next) => {
    const d = limiter.hit(keyOf(c));
    c.header("RateLimit-Limit", String(d.limit));
    c.header("RateLimit-Remaining", String(d.remaining));
    c.header("RateLimit-Reset", String(d.resetSeconds));
    if (!d.allowed) throw new RateLimitError(d.resetSeconds);
    await next();
  };
}
