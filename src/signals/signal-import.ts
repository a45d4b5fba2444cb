import type { Clock } from "../clock.ts";
import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { ImportedSignalRow, SignalRepository } from "../db/repositories/signals.ts";
import { type HistoryImporter, type HistoryJob, mergeJobs } from "../price-history/history-import.ts";

// Signal import: past calls of a channel, stored with their own createdAt so
// they can be replayed. They are stored `processed` and never handed to the signal queue, so
// no agent ever trades on them. A token whose signal is older than its recorded price history
// (no bar at the signal's minute) gets a history import queued (GeckoTerminal, HISTORY_DATA_URL)
// for PRICE_HISTORY_DAYS after the signal, up to now.

export const MAX_IMPORT_ROWS = 10_000;
const MINUTE_MS = 60_000;

export interface SignalImportResult {
  /** Rows stored. */
  imported: number;
  /** Rows equal to a signal the user already had (same createdAt, token, type, source). */
  duplicates: number;
  /** History import jobs queued for the imported tokens (0 when HISTORY_DATA_URL is empty). */
  historyQueued: number;
}

export interface SignalImporterDeps {
  signals: Pick<SignalRepository, "insertImported">;
  bars: PriceBarRepository;
  history: HistoryImporter;
  clock: Clock;
  horizonMs: number;
}

export class SignalImporter {
  constructor(private readonly d: SignalImporterDeps) {}

  import(userId: string, rows: readonly ImportedSignalRow[]): SignalImportResult {
    const now = this.d.clock.now();
    const { inserted, skipped } = this.d.signals.insertImported(userId, rows, new Date(now).toISOString());
    const jobs: HistoryJob[] = [];
    if (this.d.history.configured) {
      for (const s of inserted) {
        const at = Date.parse(s.createdAt);
        // The backtest fills at the first bar at or after the signal: none there means no history.
        if (this.d.bars.count(s.tokenAddress, at, at + MINUTE_MS) > 0) continue;
        const fromMs = Math.floor(at / MINUTE_MS) * MINUTE_MS;
        const toMs = Math.min(at + this.d.horizonMs, now);
        if (toMs > fromMs) jobs.push({ tokenAddress: s.tokenAddress, fromMs, toMs });
      }
    }
    const merged = mergeJobs(jobs);
    this.d.history.enqueue(merged);
    return { imported: inserted.length, duplicates: skipped, historyQueued: merged.length };
  }
}
