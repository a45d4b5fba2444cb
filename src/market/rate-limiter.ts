import type { Clock } from "../clock.ts";

// Client-side pacing under each provider's published limit (PRODUCT.md §5). One limiter per
// provider account: every adapter that talks to the same provider with the same key shares it
// (keyless Jupiter: price, quote and swap calls together stay at about one every 2 s).

export interface RateLimit {
  /** Minimum spacing between requests in ms; 0 disables the limiter. */
  intervalMs: number;
  /** Requests allowed back to back before the spacing applies (default 1). */
  burst?: number;
}

export const UNLIMITED: RateLimit = { intervalMs: 0 };

/**
 * GCRA ("virtual scheduling") limiter: each acquire reserves the next slot, so concurrent callers
 * queue in arrival order and none is starved. A provider's 429 can push every waiting caller back
 * with holdUntil().
 */
export class RateLimiter {
  /** Theoretical arrival time of the next request (epoch ms on the timer's clock). */
  private tat = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: RateLimit,
    private readonly timer: Clock,
  ) {}

  private get burst(): number {
    return Math.max(1, Math.floor(this.limit.burst ?? 1));
  }

  /** Waits until a request may be sent and reserves that slot. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const interval = this.limit.intervalMs;
    if (!(interval > 0)) return;
    const now = this.timer.now();
    const tat = Math.max(this.tat, now);
    const allowAt = tat - (this.burst - 1) * interval;
    this.tat = tat + interval;
    if (allowAt > now) await this.timer.sleep(allowAt - now, signal);
  }

  /** No request before `epochMs` (a provider said so with Retry-After / x-ratelimit-reset). */
  holdUntil(epochMs: number): void {
    if (!(this.limit.intervalMs > 0)) return;
    this.tat = Math.max(this.tat, epochMs + (this.burst - 1) * this.limit.intervalMs);
  }
}

/** What an HTTP client needs of its pacing: a RateLimiter, or one lane of a shared budget. */
export interface Pacer {
  acquire(signal?: AbortSignal): Promise<void>;
  holdUntil(epochMs: number): void;
}

export type LaneName = "priority" | "shared";

/**
 * One provider budget, two lanes (docs/decisions.md "Performance"): callers wait in
 * the lane's queue and the budget's next slot goes to the priority lane first (live swaps and
 * their quotes), so a live trade never waits behind a queue of simulation, price or probe
 * requests; it waits at most for the one slot already handed out. The inner limiter still paces
 * every request of both lanes, so the provider's limit holds.
 */
export class LanedRateLimiter {
  private readonly queues: Record<LaneName, Array<() => void>> = { priority: [], shared: [] };
  private pumping = false;

  constructor(private readonly inner: RateLimiter) {}

  lane(name: LaneName): Pacer {
    return {
      acquire: (signal) => this.acquire(name, signal),
      holdUntil: (ms) => this.inner.holdUntil(ms),
    };
  }

  private acquire(name: LaneName, signal?: AbortSignal): Promise<void> {
    if (!(this.inner.limit.intervalMs > 0)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const queue = this.queues[name];
      const grant = () => {
        signal?.removeEventListener("abort", abandon);
        resolve();
      };
      // Aborted while waiting: leave the queue and return at once, as RateLimiter.acquire does.
      const abandon = () => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        resolve();
      };
      if (signal?.aborted) return resolve();
      signal?.addEventListener("abort", abandon, { once: true });
      queue.push(grant);
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queues.priority.length > 0 || this.queues.shared.length > 0) {
        await this.inner.acquire();
        const next = this.queues.priority.shift() ?? this.queues.shared.shift();
        next?.();
      }
    } finally {
      this.pumping = false;
    }
  }
}
