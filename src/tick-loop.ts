// The background loop of the copy-trading watcher, the position monitor and the price recorder:
// runs a tick, then waits what is left of the interval; never two ticks at once. stop() waits for
// the tick in flight.

/** What the loop waits with: real timers in the service; tests pass one they fire by hand. */
export interface LoopTimer {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimer: LoopTimer = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class TickLoop {
  private stopped = true;
  private timer: unknown = null;
  private running: Promise<unknown> | null = null;

  /**
   * `intervalMs` is read before each wait; `onError` sees a tick's failure and answers "stop" to
   * end the loop (until the next start()).
   */
  constructor(
    private readonly tick: () => Promise<unknown>,
    private readonly intervalMs: () => number,
    private readonly onError: (err: unknown) => "stop" | undefined,
    private readonly timers: LoopTimer = realTimer,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      const began = this.timers.now();
      this.running = this.tick().catch((err) => {
        if (this.onError(err) === "stop") this.stopped = true;
      });
      await this.running;
      this.running = null;
      if (this.stopped) return;
      this.timer = this.timers.setTimeout(loop, Math.max(0, this.intervalMs() - (this.timers.now() - began)));
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }
}
