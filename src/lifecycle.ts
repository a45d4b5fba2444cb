import type { Logger } from "./logger.ts";

// Start and shutdown hooks of the background machinery (PRODUCT.md §6 "SIGTERM/SIGINT: stop
// accepting, finish trades in flight, close the database, exit 0"). Workers register here through
// `Services.onStart` / `Services.onShutdown`; serve() runs the start hooks once it listens (tests
// never do: they drive ticks directly) and `Services.stop()` runs the shutdown hooks.

export type Hook = () => unknown;

/**
 * The one shutdown bound: serve() spends it on requests, the hooks' drain and the listener close
 * (passing the hooks what is left); Services.stop() alone gives it all to the hooks.
 * systemd's TimeoutStopSec is above it (deploy/).
 */
export const SHUTDOWN_TIMEOUT_MS = 20_000;

export interface StopOptions {
  /** Bound for all shutdown hooks together; a hook still running then is abandoned (logged). */
  timeoutMs?: number;
}

export class Lifecycle {
  private readonly startHooks: Array<{ fn: Hook; label: string }> = [];
  private readonly shutdownHooks: Array<{ fn: Hook; label: string }> = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  onStart(fn: Hook, label = `start hook ${this.startHooks.length + 1}`): void {
    this.startHooks.push({ fn, label });
  }

  onShutdown(fn: Hook, label = `shutdown hook ${this.shutdownHooks.length + 1}`): void {
    this.shutdownHooks.push({ fn, label });
  }

  /** Runs the start hooks once, in registration order; a failing hook fails the start. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const h of this.startHooks) await h.fn();
  }

  /**
   * Runs the shutdown hooks once, in reverse registration order (what started last stops first),
   * each awaited, all within one time bound. A hook that throws or overruns is logged and the
   * next one still runs: a stuck worker must not keep the database from being closed.
   */
  stop(opts: StopOptions = {}): Promise<void> {
    this.stopping ??= this.runShutdown(opts.timeoutMs ?? SHUTDOWN_TIMEOUT_MS);
    return this.stopping;
  }

  private async runShutdown(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (const h of [...this.shutdownHooks].reverse()) {
      const left = Math.max(0, deadline - performance.now());
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), left);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(h.fn), timedOut]);
        if (outcome === "timeout") this.logger.warn("shutdown step timed out", { step: h.label, timeoutMs });
      } catch (err) {
        this.logger.error("shutdown step failed", {
          step: h.label,
          error: err instanceof Error ? err.message : String(err),
        });
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
