import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";

// Push heartbeat (PRODUCT.md §7, README "A box on the internet"): the healthchecks.io / Uptime
// Kuma convention. While healthy (the position monitor ticking, the database taking writes) a GET
// of HEARTBEAT_URL every interval; while degraded, the fail URL; a dead box sends nothing, which
// the monitor reports by itself. The URLs hold the monitor's token: they are never logged.

export interface HeartbeatDeps {
  url: string;
  failUrl: string;
  clock: Clock;
  logger: Logger;
  /** Why the service is degraded, or null when healthy. */
  degradedBecause: () => string | null;
  /** The webhook URL rules (src/notifications/webhooks/ssrf-guard.ts); throws when refused. */
  guard: (url: string) => Promise<void>;
  timeoutMs: number;
}

export type BeatResult =
  | { sent: "ok" | "fail"; status: number; reason: string | null }
  | { sent: null; error: string; reason: string | null };

export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<BeatResult> | null = null;

  constructor(private readonly d: HeartbeatDeps) {}

  /** One beat: decides healthy or degraded now and calls the matching URL. */
  async beat(): Promise<BeatResult> {
    const reason = this.d.degradedBecause();
    const target = reason === null ? this.d.url : this.d.failUrl;
    const sent = reason === null ? "ok" : "fail";
    try {
      await this.d.guard(target);
      const res = await fetch(target, {
        method: "GET",
        redirect: "manual",
        signal: AbortSignal.timeout(this.d.timeoutMs),
      });
      await res.body?.cancel();
      if (res.status >= 300) this.d.logger.warn("heartbeat refused by the monitor", { status: res.status, sent });
      if (reason !== null) this.d.logger.warn("heartbeat: service degraded", { reason });
      return { sent, status: res.status, reason };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.d.logger.warn("heartbeat not delivered", { error, sent });
      return { sent: null, error, reason };
    }
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    const run = () => {
      // A beat still waiting on a slow monitor is not doubled.
      this.running ??= this.beat().finally(() => {
        this.running = null;
      });
    };
    run();
    this.timer = setInterval(run, intervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

/**
 * The heartbeat's health: the monitor ticked within three intervals (or the service started less
 * than three intervals ago), and the database takes a write.
 */
export function heartbeatHealth(d: {
  clock: Clock;
  startedAt: number;
  monitorIntervalMs: number;
  lastMonitorTickAt: () => number;
  databaseWritable: () => boolean;
}): () => string | null {
  return () => {
    if (!d.databaseWritable()) return "database not writable";
    const since = Math.max(d.lastMonitorTickAt(), d.startedAt);
    if (d.clock.now() - since > 3 * d.monitorIntervalMs) return "position monitor not ticking";
    return null;
  };
}
