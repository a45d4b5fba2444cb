import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { Logger } from "../logger.ts";
import { type GeckoTerminalClient, OHLCV_PAGE } from "../market/geckoterminal.ts";

// History import (issue 17) for signals older than the recording: a token's 1-minute bars from
// GeckoTerminal (HISTORY_DATA_URL) for [fromMs, toMs), paging backwards with before_timestamp,
// stored as `imported` bars (a recorded bar is never overwritten). Requests go through the
// client's 30-a-minute limiter; jobs run one at a time from a queue the signal import fills.

export interface HistoryJob {
  tokenAddress: string;
  fromMs: number;
  toMs: number;
}

export class HistoryImporter {
  private readonly queue: HistoryJob[] = [];
  private draining: Promise<void> | null = null;
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

  /** Queues jobs (one per token, merged ranges) and runs them in the background. */
  enqueue(jobs: readonly HistoryJob[]): void {
    if (!this.client) return;
    this.queue.push(...mergeJobs(jobs));
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  /** Resolves when the queue is empty (tests). */
  idle(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      try {
        const n = await this.importRange(job);
        this.log.info("price history imported", { tokenAddress: job.tokenAddress, bars: n });
      } catch (err) {
        this.log.warn("price history import failed", {
          tokenAddress: job.tokenAddress,
          reason: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}

export function mergeJobs(jobs: readonly HistoryJob[]): HistoryJob[] {
  const by = new Map<string, HistoryJob>();
  for (const j of jobs) {
    const cur = by.get(j.tokenAddress);
    if (!cur) by.set(j.tokenAddress, { ...j });
    else {
      cur.fromMs = Math.min(cur.fromMs, j.fromMs);
      cur.toMs = Math.max(cur.toMs, j.toMs);
    }
  }
  return [...by.values()];
}
