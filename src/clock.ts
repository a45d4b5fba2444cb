// Time is injected everywhere a rule depends on it (lockout, token expiry, staleness, position
// age, rate-limit windows) and everywhere code waits (retry back-off, rate limiters, stream
// reconnects, confirmation polling), so tests move it instead of sleeping.
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or early (without throwing) once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableDelay(ms, signal),
};

/**
 * A clock tests move by hand. Its sleep returns at once and moves the clock forward instead, so
 * back-off, Retry-After and rate-limit waits cost no real time and tests can assert what was
 * waited (`sleeps`).
 */
export class ManualClock implements Clock {
  /** Every wait asked for, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(private t: number = Date.parse("2026-01-01T00:00:00.000Z")) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    if (ms > 0) this.t += ms;
    await Promise.resolve();
  }
}

export const isoNow = (clock: Pick<Clock, "now">): string => new Date(clock.now()).toISOString();

export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
