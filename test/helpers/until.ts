// Waiting for an event, never for time to pass: `until` yields to the event loop (so I/O and
// timers run) until a condition holds and fails loudly, naming what it waited for, after a bound
// of real time; `drained` lets every already-settled promise chain run to its end.

/**
 * Resolves with what `probe` found once it finds something (anything but undefined, null or
 * false; a condition's `true`, a row); throws `timed out waiting for <what>` after `ms` of real
 * time. `pollMs` spaces the probes: a probe that opens a child's database each time wants more
 * than the default.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  what = "condition",
  ms = 20_000,
  pollMs = 1,
): Promise<NonNullable<T>> {
  const deadline = performance.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== null && found !== false) return found as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** One turn of the event loop: every microtask queued so far (and those they queue) has run. */
export const drained = (): Promise<void> => new Promise((r) => setImmediate(r));
