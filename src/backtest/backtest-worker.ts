import type { Clock } from "../clock.ts";
import type { BacktestRepository } from "../db/repositories/backtests.ts";
import type { PriceBarRepository } from "../db/repositories/price-bars.ts";
import type { PriceImpactRepository } from "../db/repositories/price-impacts.ts";
import type { Logger } from "../logger.ts";
import type { TokenDecimalsProvider } from "../market/types.ts";
import type { BacktestService } from "./backtest-service.ts";
import { type BacktestRequest, resolveVariants } from "./request.ts";
import { runBacktest } from "./run-backtest.ts";

// Runs queued backtests one at a time: claim → load signals and price paths → replay
// each variant, reporting progress between variants → store results (done) or the error
// (failed). tick() runs one backtest; tests call it directly, start() loops it.

export interface BacktestWorkerDeps {
  repo: BacktestRepository;
  service: BacktestService;
  bars: PriceBarRepository;
  /** Recorded price impacts, applied to the fills. */
  impacts?: PriceImpactRepository;
  decimals: TokenDecimalsProvider;
  clock: Clock;
  logger: Logger;
  priorityFeeSol: number;
  horizonMs: number;
  pollMs?: number;
}

export class BacktestWorker {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private readonly log: Logger;

  constructor(private readonly d: BacktestWorkerDeps) {
    this.log = d.logger.child({ component: "backtests" });
  }

  private now = () => new Date(this.d.clock.now()).toISOString();

  /** Runs the oldest queued backtest, if any; returns its id. */
  async tick(): Promise<string | null> {
    const row = this.d.repo.claimNext(this.now());
    if (!row) return null;
    try {
      const req = JSON.parse(row.request) as BacktestRequest;
      const variants = resolveVariants(req.variants);
      const signals = this.d.service.selectSignals(row.userId, req.signals);
      const { variants: results, trades } = await runBacktest(
        { initialSol: req.initialSol, variants, signals },
        { ...this.d, logger: this.log },
        async (done, total) => {
          this.d.repo.setProgress(row.id, done / (total + 1), this.now());
          // Let requests in: a long run never holds the event loop for more than one variant.
          await new Promise((r) => setTimeout(r, 0));
        },
      );
      this.d.repo.complete(row.id, results, trades, this.now());
      this.log.info("backtest done", { backtestId: row.id, variants: variants.length, signals: signals.length });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log.warn("backtest failed", { backtestId: row.id, reason });
      this.d.repo.fail(row.id, reason, this.now());
    }
    return row.id;
  }

  /** A run cut short by a stop or crash starts again from the queue. */
  recover(): void {
    const n = this.d.repo.requeueRunning(this.now());
    if (n > 0) this.log.info("interrupted backtests queued again", { count: n });
  }

  /** Runs queued backtests until none is left, then polls. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.recover();
    const loop = async () => {
      if (this.stopped) return;
      this.running = this.drain();
      await this.running;
      this.running = null;
      if (!this.stopped) this.timer = setTimeout(loop, this.d.pollMs ?? 2000);
    };
    void loop();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && (await this.tick()) !== null) {}
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running) await this.running;
  }
}
