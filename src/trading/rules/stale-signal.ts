// Stale signal (issue 35, docs/decisions/under-load.md): a buy signal decided more than
// SIGNAL_MAX_AGE_SECONDS after it was received opens nothing; the market it was meant for has
// moved on. Age runs from the signal's receipt (its createdAt) to the agent's decision; exactly
// at the limit is not yet stale. Exit signals are never dropped for age (the caller does not ask).

export type StaleSignalDecision = { stale: false } | { stale: true; ageSeconds: number; reason: string };

export function evaluateSignalAge(receivedAtMs: number, nowMs: number, maxAgeSeconds: number): StaleSignalDecision {
  const ageSeconds = Math.max(0, nowMs - receivedAtMs) / 1000;
  if (ageSeconds <= maxAgeSeconds) return { stale: false };
  return {
    stale: true,
    ageSeconds,
    reason: `Signal was ${ageSeconds.toFixed(1)} s old when decided (limit ${maxAgeSeconds} s); a late buy opens nothing`,
  };
}
