import type { Clock } from "../clock.ts";
import { type Config, ConfigError } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { findLitestream } from "../db/replication/litestream-binary.ts";
import { parseReplicaUrl } from "../db/replication/replica-url.ts";
import { ReplicationAlarm } from "../db/replication/replication-alarm.ts";
import { Replicator, touchUserVersion } from "../db/replication/replicator.ts";
import { adminUserIds } from "../db/repositories/admin-presence.ts";
import type { EventBus } from "../events/bus.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { Counter, Gauge } from "../metrics/prom.ts";

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  metrics: Metrics;
  events: EventBus;
}

/**
 * REPLICA_URL set: the Litestream child process (src/db/replication/replicator.ts), its
 * `replication` health check, its gauge and counter. Unset: null, and nothing of this exists
 * (no process, no check, no metric; the service's own WAL checkpoints as before).
 * A REPLICA_URL without a Litestream binary is a configuration error: the operator asked for
 * copies off the machine, and a service that silently made none would be worse than one that
 * does not start.
 */
export function createReplication(config: Config, d: Deps): Replicator | null {
  if (!config.REPLICA_URL || d.database.path === ":memory:") return null;
  const replica = parseReplicaUrl(config.REPLICA_URL);
  if ("error" in replica) throw new ConfigError([`REPLICA_URL: ${replica.error}`]);
  const binary = findLitestream({ LITESTREAM_BIN: config.LITESTREAM_BIN, PATH: process.env.PATH });
  if (!binary)
    throw new ConfigError([
      config.LITESTREAM_BIN
        ? "LITESTREAM_BIN: no such file"
        : "REPLICA_URL: the Litestream binary was not found: install it (docs/backups.md) or set LITESTREAM_BIN",
    ]);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  if (process.env.HOME) env.HOME = process.env.HOME;
  for (const k of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] as const) {
    const v = config[k];
    if (v) env[k] = v;
  }
  const alarm = new ReplicationAlarm((a) => {
    d.logger.error("replication has been failing for more than a minute", { replica: a.replica });
    for (const admin of adminUserIds(d.database.sqlite)) d.events.publish("replication.failing", admin, a);
  });
  const replicator = new Replicator({
    binary,
    settings: {
      databasePath: d.database.path,
      replica,
      s3Endpoint: config.REPLICA_S3_ENDPOINT || undefined,
      region: config.AWS_REGION,
      syncIntervalSeconds: config.REPLICA_SYNC_INTERVAL_SECONDS,
    },
    env,
    touch: () => touchUserVersion(d.database.sqlite),
    clock: d.clock,
    logger: d.logger,
    onReport: (r, now) => alarm.observe(r, now),
  });
  d.health.register("replication", () => {
    const r = replicator.report();
    return {
      status: r.status,
      state: r.state,
      lagSeconds: r.lagSeconds,
      replica: r.replica,
      ...(r.status === "healthy" ? {} : { message: MESSAGES[r.state] }),
    };
  });
  const registers = [d.metrics.registry];
  new Gauge({
    name: "trading_replication_lag_seconds",
    help: "Seconds the oldest commit not yet on the replica has waited (0: every commit replicated)",
    registers,
    collect() {
      this.set(replicator.report().lagSeconds);
    },
  });
  new Counter({
    name: "trading_replication_errors_total",
    help: "Replica write errors Litestream reported since the service started",
    registers,
    collect() {
      this.reset();
      this.inc(replicator.errors);
    },
  });
  return replicator;
}

const MESSAGES: Record<string, string> = {
  starting: "Litestream is starting",
  behind: "commits are waiting to reach the replica",
  failing: "commits do not reach the replica",
  replicating: "",
};
