import type { Clock } from "../clock.ts";
import { ServiceBusyError } from "../errors.ts";
import type { Logger } from "../logger.ts";

// The in-process signal queue. POST /trading-signals enqueues and returns 201 at once; the queue
// hands the signals waiting over to the processor in batches, in order (docs/decisions.md
// "Performance", docs/decisions/under-load.md): every signal stored in one turn of the event loop
// goes in one batch, so a burst is decided per batch where it can be (one read of the agents, one
// commit), and a signal whose agents trade does not hold back the next one. Two signals still
// never race for one agent: the processor gives each agent its signals one at a time, in this
// queue's order (src/trading/agent-turns.ts). Durability does not depend on the queue: the signal
// row carries its processing status and unfinished rows are resumed at start (PRODUCT.md §4).
//
// The queue knows its lag: the age of the oldest signal it holds undecided, from the time the
// signal was received (stored), read by /health, /metrics and the backpressure check of
// POST /trading-signals. A signal is decided once each of its agents has refused it, recorded
// its outcome, or holds or waits behind a trade in flight (the handler says so): a live swap
// waiting to land is not a decision waiting to be made, so it neither lags the queue nor makes it
// refuse anyone (docs/decisions/under-load.md "Trades in flight").

/**
 * Decides a batch of signals in order: one promise per signal, settled once it is done (its
 * trades landed or failed too); `decided(id)` may say earlier that a signal is decided.
 */
export type SignalHandler = (signalIds: readonly number[], decided: (signalId: number) => void) => Array<Promise<void>>;

/** Signals handed over and not yet decided, at most (those left with trades in flight apart). */
const MAX_IN_FLIGHT = 1024;
/** Signals in one batch, at most, while nothing else asks for the thread. */
const MAX_BATCH = 256;
/**
 * Signals in one batch, at least, while the API is being used (shareWith): about 2-3 ms of
 * decisions on the reference machine, so a request waits about that long for the queue's turn.
 * A batch is never smaller than what arrived since the last one, so a burst of posts is still
 * decided as fast as it is accepted.
 */
const SHARED_BATCH = 16;

export class SignalQueue {
  private readonly pending: number[] = [];
  /** Received time (epoch ms) of every signal undecided, pending or in flight, in the order taken in. */
  private readonly undecided = new Map<number, number>();
  /** Every signal held until it is done: pending, being decided, or left with trades in flight. */
  private readonly held = new Set<number>();
  private readonly onDecided = (id: number) => {
    if (this.undecided.delete(id) && this.pending.length > 0) this.schedule();
  };
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private scheduled = false;
  private idleWaiters: Array<() => void> = [];
  private othersWaiting: () => boolean = () => false;
  /** Signals taken in since the last batch was handed over. */
  private arrivedSinceBatch = 0;

  constructor(
    private readonly handler: SignalHandler,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Takes a signal in; `receivedAtMs`: when it was stored (its createdAt), for the lag; now when not given. */
  enqueue(signalId: number, receivedAtMs: number = this.clock.now()): void {
    if (this.stopped || this.held.has(signalId)) return;
    this.held.add(signalId);
    this.undecided.set(signalId, receivedAtMs);
    this.pending.push(signalId);
    this.arrivedSinceBatch++;
    this.schedule();
  }

  /**
   * Seconds since the oldest signal still undecided (pending or being decided) was received; 0 when
   * none. Signals are taken in received order (recovery queues the unfinished ones oldest first,
   * ahead of new ones), so the first one undecided is the oldest: O(1) per read.
   */
  get lagSeconds(): number {
    for (const receivedAt of this.undecided.values()) return Math.max(0, (this.clock.now() - receivedAt) / 1000);
    return 0;
  }

  /**
   * Backpressure (docs/decisions/under-load.md): throws a 503 with Retry-After while the lag is
   * above `maxLagSeconds`, so a new signal is refused before it is stored instead of joining a
   * backlog that would decide it late. Retry-After: the seconds the lag is over the limit (at
   * least 1), the least the backlog needs to come back under it.
   */
  refuseWhileBehind(maxLagSeconds: number): void {
    const lag = this.lagSeconds;
    if (lag <= maxLagSeconds) return;
    const retryAfter = Math.max(1, Math.ceil(lag - maxLagSeconds));
    throw new ServiceBusyError(
      `Signal processing is behind (signals wait ${Math.round(lag)} s to be decided, limit ${maxLagSeconds} s); retry after ${retryAfter} s`,
      retryAfter,
    );
  }

  get depth(): number {
    return this.pending.length + this.inFlight.size;
  }

  get isRunning(): boolean {
    return this.inFlight.size > 0;
  }

  /**
   * `busy` says whether the thread is serving others (the API answered a request lately): a batch
   * is then what arrived since the last one, at least SHARED_BATCH, so a backlog drains in short
   * turns between requests and new signals are decided as they come; else MAX_BATCH. The event loop
   * polls between batches either way.
   */
  shareWith(busy: () => boolean): void {
    this.othersWaiting = busy;
  }

  /** The next batch starts after this turn of the event loop, with every signal stored in it. */
  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /**
   * Hands the next batch over in queue order while fewer than MAX_IN_FLIGHT run, then lets the
   * event loop poll before the next one. Most of a batch is decided synchronously (its cheap
   * refusals and their one transaction), so handing several over in one turn held every request
   * for as long: during a 40,000-signal drain GET /agents answered 150 requests/s with a p99 of
   * 600 ms (docs/decisions/under-load.md "GET /agents during a drain"). While the API is in use
   * the batches are small, so a request waits for one short batch, not a long one.
   */
  private pump(): void {
    // Pending signals are undecided too: the rest are being decided.
    const deciding = this.undecided.size - this.pending.length;
    if (this.stopped || this.pending.length === 0 || deciding >= MAX_IN_FLIGHT) return;
    const size = this.othersWaiting() ? Math.min(MAX_BATCH, Math.max(SHARED_BATCH, this.arrivedSinceBatch)) : MAX_BATCH;
    this.arrivedSinceBatch = 0;
    const batch = this.pending.splice(0, Math.min(size, MAX_IN_FLIGHT - deciding));
    let runs: Array<Promise<void>>;
    try {
      runs = this.handler(batch, this.onDecided);
    } catch (err) {
      runs = batch.map(() => Promise.reject(err));
    }
    for (let i = 0; i < batch.length; i++) this.track(batch[i] as number, runs[i] ?? Promise.resolve());
    if (this.pending.length > 0) this.schedule();
  }

  private track(id: number, decided: Promise<void>): void {
    const run: Promise<void> = decided
      .catch((err) => {
        this.logger.error("signal processing failed", {
          signalId: id,
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .finally(() => {
        this.undecided.delete(id);
        this.held.delete(id);
        this.inFlight.delete(run);
        this.schedule();
        if (this.inFlight.size === 0 && this.pending.length === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
    this.inFlight.add(run);
  }

  /** Resolves when the queue is empty and every signal decided (tests, shutdown). */
  idle(): Promise<void> {
    if (this.inFlight.size === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking new work and waits (bounded) for the items in flight. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopped = true;
    for (const id of this.pending.splice(0)) this.undecided.delete(id);
    if (this.inFlight.size > 0) {
      await Promise.race([Promise.all(this.inFlight), new Promise((r) => setTimeout(r, timeoutMs))]);
    }
  }
}
