// Retry schedule of a webhook delivery: the first attempt at once, then retries after
// about 5 s, 30 s, 2 min, 10 min, 1 h and 6 h; after the last one fails the delivery is given up.
// An endpoint whose failures have gone on for 24 h without one success is disabled.

export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const DISABLE_AFTER_FAILING_MS = 24 * 3_600_000;

export type AttemptOutcome = { kind: "delivered" } | { kind: "retry"; nextAttemptAt: number } | { kind: "given_up" };

/** What follows attempt number `attempt` (1-based) that ended at `now`. */
export function afterAttempt(attempt: number, succeeded: boolean, now: number): AttemptOutcome {
  if (succeeded) return { kind: "delivered" };
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? { kind: "given_up" } : { kind: "retry", nextAttemptAt: now + delay };
}

/** Whether an endpoint failing since `failingSince` (ms) should be disabled at `now`. */
export function shouldDisable(failingSince: number | null, now: number): boolean {
  return failingSince !== null && now - failingSince >= DISABLE_AFTER_FAILING_MS;
}
