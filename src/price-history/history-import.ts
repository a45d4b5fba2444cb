import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { Logger } from "../logger.ts";
import { type GeckoTerminalClient, OHLCV_PAGE } from "../market/geckoterminal.ts";

// History import for signals older than the recording: a token's 1-minute bars from
// GeckoTerminal (HISTORY_DATA_URL) for [fromMs, toMs), paging backwards with before_timestamp,
// stored as `imported` bars (a recorded bar is never overwritten). Requests go through the
// client's 30-a-minute limiter; jobs run one at a time from a queue the signal import fills
// (src/signals/signal-import.ts); tick() runs one, start() works through the queue in the background.

export interface HistoryJob {
  tokenAddress: string;
  fromMs: number;
  toMs: number;
}

export class HistoryImporter {
  private readonly queue: HistoryJob[] = [];
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private readonly log: Logger;

  constructor(
    private readonly client: GeckoTerminalClient | null,
    private readonly bars: PriceBarRepository,
    logger: Logger,
  ) {
    this.log = logger.child({ component: "history-import" });
  }

  get configured(): boolean {
    return this.client !== null;
  }

  /** Imports one token's range now; returns the bars stored. */
  async importRange(job: HistoryJob): Promise<number> {
    if (!this.client) return 0;
    const pool = await this.client.solPool(job.tokenAddress);
    if (!pool) {
      this.log.info("no SOL pool for token; history not imported", { tokenAddress: job.tokenAddress });
      return 0;
    }
    let before = job.toMs;
    let stored = 0;
    while (before > job.fromMs) {
      const page = await this.client.minuteBars(pool, before, OHLCV_PAGE);
      const wanted = page.filter((b) => b.time >= job.fromMs);
      stored += this.bars.importBars(job.tokenAddress, wanted);
      if (page.length < OHLCV_PAGE || wanted.length < page.length || page.length === 0) break;
      before = page[0]!.time;
    }
    return stored;
  }

  /** Jobs waiting, in the order they will run (a copy). */
  get pending(): HistoryJob[] {
    return this.queue.map((j) => ({ ...j }));
  }

  /**
   * Queues jobs, merging each token's overlapping ranges (with each other and with what is
   * already queued), and wakes the loop if it runs. Returns how many jobs are queued now.
   */
  enqueue(jobs: readonly HistoryJob[]): number {
    if (!this.client || jobs.length === 0) return this.queue.length;
    const merged = mergeJobs([...this.queue, ...jobs]);
    this.queue.splice(0, this.queue.length, ...merged);
    this.wake?.();
    return this.queue.length;
  }

  /** Runs the oldest queued job, if any; returns it with the bars stored (tests drive this). */
  async tick(): Promise<{ job: HistoryJob; stored: number } | null> {
    const job = this.queue.shift();
    if (!job) return null;
    try {
      const stored = await this.importRange(job);
      this.log.info("price history imported", { tokenAddress: job.tokenAddress, bars: stored });
      return { job, stored };
    } catch (err) {
      this.log.warn("price history import failed", {
        tokenAddress: job.tokenAddress,
        reason: err instanceof Error ? err.message : String(err),
      });
      return { job, stored: 0 };
    }
  }

  /** Works through the queue in the background, then sleeps until enqueue() wakes it. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      while (!this.stopped && this.queue.length > 0) {
        this.running = this.tick();
        await this.running;
        this.running = null;
      }
      if (!this.stopped)
        this.wake = () => {
          this.wake = null;
          void loop();
        };
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake = null;
    if (this.running) await this.running;
  }
}

/**
 * One job per token and stretch of time: ranges of the same token that overlap or touch are
 * merged; ranges far apart stay separate jobs (two calls a month apart import two weeks, not
 * the month between them).
 */
export function mergeJobs(jobs: readonly HistoryJob[]): HistoryJob[] {
  const sorted = [...jobs].sort((a, b) =>
    a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : a.fromMs - b.fromMs,
  );
  const out: HistoryJob[] = [];
  for (const j of sorted) {
    const cur = out.at(-1);
    if (cur && cur.tokenAddress === j.tokenAddress && j.fromMs <= cur.toMs) cur.toMs = Math.max(cur.toMs, j.toMs);
    else out.push({ ...j });
  }
  return out;
}
