import type { Logger } from "../logger.ts";

// The in-process signal queue (issue: trading engine). POST /trading-signals enqueues and returns
// 201 at once; one worker drains the queue in order, so two signals never race for one agent's
// balance. Durability does not depend on the queue: the signal row carries its processing status
// and unfinished rows are resumed or expired at start (PRODUCT.md §4).

export type SignalHandler = (signalId: number) => Promise<void>;

export class SignalQueue {
  private readonly pending: number[] = [];
  private readonly queued = new Set<number>();
  private running = false;
  private stopped = false;
  private current: Promise<void> | null = null;
  private idleWaiters: Array<() => void> = [];
  /** Last time the worker finished an item or was idle-checked; for the health check. */
  lastBeat = Date.now();

  constructor(
    private readonly handler: SignalHandler,
    private readonly logger: Logger,
  ) {}

  enqueue(signalId: number): void {
    if (this.stopped || this.queued.has(signalId)) return;
    this.queued.add(signalId);
    this.pending.push(signalId);
    if (!this.running) this.current = this.drain();
  }

  get depth(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  get isRunning(): boolean {
    return this.running;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped && this.pending.length > 0) {
        const id = this.pending.shift() as number;
        try {
          await this.handler(id);
        } catch (err) {
          this.logger.error("signal processing failed", {
            signalId: id,
            error: err instanceof Error ? err.message : String(err),
          });
        } finally {
          this.queued.delete(id);
          this.lastBeat = Date.now();
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves when the queue is empty and the worker idle (tests, shutdown). */
  idle(): Promise<void> {
    if (!this.running && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking new work and waits (bounded) for the item in flight. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopped = true;
    this.pending.length = 0;
    if (this.current) {
      await Promise.race([this.current, new Promise((r) => setTimeout(r, timeoutMs))]);
    }
  }
}
