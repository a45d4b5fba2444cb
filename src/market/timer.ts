// Waiting, injected: the HTTP client's retry back-off and rate limiter, and the SOL price stream's
// reconnect and polling loops, wait through a Timer so tests (and the benchmark) can hand in one
// whose sleep does not really wait. Domain time (staleness, cache expiry) uses the service Clock.

export interface Timer {
  /** Epoch milliseconds (Retry-After dates and x-ratelimit-reset epochs are compared to it). */
  now(): number;
  /** Resolves after `ms`, or early (without throwing) once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time: Date.now() and setTimeout. */
export const realTimer: Timer = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableDelay(ms, signal),
};

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
