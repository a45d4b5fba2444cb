import type { AuditLog } from "../audit/audit-log.ts";
import type { AccessTokenBlacklist } from "../auth/blacklist.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { Replicator } from "../db/replication/replicator.ts";
import { leaveCheckpointsToReplication, type WalCheckpointer } from "../db/wal-checkpointer.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { MarketServices } from "../market/index.ts";
import type { Notifications } from "../notifications/index.ts";
import type { SignalIntake } from "../signals/signal-intake.ts";
import type { SignalQueue } from "../signals/signal-queue.ts";
import type { SignalService } from "../signals/signal-service.ts";
import type { StrategyLab } from "../strategy-lab.ts";
import type { LiveTrading } from "../trading/live/index.ts";
import type { PositionMonitor } from "../trading/position-monitor.ts";

interface Workers {
  config: Config;
  audit: AuditLog;
  blacklist: AccessTokenBlacklist;
  market: MarketServices;
  live: LiveTrading | null;
  strategyLab: StrategyLab;
  notifications: Notifications;
  walCheckpoints: WalCheckpointer;
  replication: Replicator | null;
  database: DatabaseHandle;
  monitor: PositionMonitor;
  signals: SignalService;
  signalQueue: SignalQueue;
  signalIntake: SignalIntake;
}

/**
 * Background workers. serve() runs the start hooks in this order once it listens; shutdown runs
 * in reverse (what started last stops first), so the timers go after the workers drain.
 */
export function registerWorkers(lifecycle: Lifecycle, w: Workers): void {
  const { market, strategyLab, notifications, monitor, live } = w;
  const minute = 60_000;
  const pruneAudit = () => w.audit.prune(w.config.AUDIT_LOG_RETENTION_DAYS);
  const timers = [setInterval(() => w.blacklist.sweep(), 5 * minute), setInterval(pruneAudit, 60 * minute)];
  // The audit log's retention (AUDIT_LOG_RETENTION_DAYS): once at start, then hourly.
  lifecycle.onStart(pruneAudit, "audit log retention");
  for (const t of timers) t.unref?.();
  // WAL checkpoints: registered first, so its shutdown step runs last, after every writer stopped.
  // With REPLICA_URL Litestream owns them (docs/decisions/replication.md "Checkpoints"): the
  // service's connection never checkpoints while it runs, its own checkpointer does not start,
  // and Litestream is stopped last, after its final sync, so that the close's checkpoint
  // (database.close) finds no reader.
  const replication = w.replication;
  if (replication) {
    lifecycle.onStart(() => {
      leaveCheckpointsToReplication(w.database.sqlite);
      replication.start();
    }, "replication");
    lifecycle.onShutdown(() => replication.stop(), "replication");
  } else {
    lifecycle.onStart(() => w.walCheckpoints.start(), "WAL checkpoints");
    lifecycle.onShutdown(() => w.walCheckpoints.stop(), "WAL checkpoints");
  }
  // Normally done already: serve() recovers before it opens the door (a no-op then).
  lifecycle.onStart(() => w.signalIntake.ensureRecovered(), "signal recovery");
  lifecycle.onShutdown(() => w.signalQueue.stop(), "signal queue");
  lifecycle.onShutdown(() => {
    for (const t of timers) clearInterval(t);
  }, "timers");
  lifecycle.onStart(() => market.solPrice.start(), "SOL price feed");
  lifecycle.onStart(() => market.prober.start(), "reachability probes");
  lifecycle.onShutdown(() => market.stop(), "SOL price feed");
  lifecycle.onStart(() => monitor.start(), "position monitor");
  // Shutdown runs in reverse: the monitor's last tick ends before the closes it started are awaited.
  if (live) lifecycle.onShutdown(() => live.closer.stop(), "token account closes");
  lifecycle.onShutdown(() => monitor.stop(), "position monitor");
  lifecycle.onStart(() => strategyLab.recorder.start(), "price history recorder");
  lifecycle.onShutdown(() => strategyLab.recorder.stop(), "price history recorder");
  lifecycle.onStart(() => strategyLab.worker.start(), "backtest worker");
  lifecycle.onShutdown(() => strategyLab.worker.stop(), "backtest worker");
  lifecycle.onStart(() => notifications.start(), "notifications");
  lifecycle.onShutdown(() => notifications.stop(), "notifications");
  lifecycle.onStart(() => strategyLab.history.start(), "history import");
  lifecycle.onShutdown(() => strategyLab.history.stop(), "history import");
}
