// Waiting for an event, never for time to pass: `until` yields to the event loop (so I/O and
// timers run) until a condition holds and fails loudly, naming what it waited for, after a bound
// of real time; `drained` lets every already-settled promise chain run to its end.

/** Resolves once `cond` holds; throws `timed out waiting for <what>` after `ms` of real time. */
export async function until(cond: () => boolean, what = "condition", ms = 20_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** One turn of the event loop: every microtask queued so far (and those they queue) has run. */
export const drained = (): Promise<void> => new Promise((r) => setImmediate(r));
