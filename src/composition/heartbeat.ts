import type { Clock } from "../clock.ts";
import { isoNow } from "../clock.ts";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { databaseTakesWrites } from "../db/write-probe.ts";
import { Heartbeat, heartbeatHealth } from "../health/heartbeat.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { Logger } from "../logger.ts";
import { assertSafeWebhookUrl, dnsResolver, type Resolver } from "../notifications/webhooks/ssrf-guard.ts";
import type { PositionMonitor } from "../trading/position-monitor.ts";

interface HeartbeatWiring {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  monitor: PositionMonitor;
  lifecycle: Lifecycle;
  resolver?: Resolver;
}

/** HEARTBEAT_URL set: the heartbeat, started with the other workers; null otherwise. */
export function createHeartbeat(w: HeartbeatWiring): Heartbeat | null {
  const { config, clock } = w;
  if (config.HEARTBEAT_URL === "") return null;
  const heartbeat = new Heartbeat({
    url: config.HEARTBEAT_URL,
    failUrl: config.HEARTBEAT_FAIL_URL || `${config.HEARTBEAT_URL}/fail`,
    clock,
    logger: w.logger.child({ component: "heartbeat" }),
    degradedBecause: heartbeatHealth({
      clock,
      startedAt: clock.now(),
      monitorIntervalMs: config.MONITOR_INTERVAL_SECONDS * 1000,
      lastMonitorTickAt: () => w.monitor.lastTickAt,
      databaseWritable: () => databaseTakesWrites(w.database.sqlite, isoNow(clock)),
    }),
    // The same outbound rules as webhooks: http(s), no private address unless allowed, never metadata.
    guard: (url) => assertSafeWebhookUrl(url, config.WEBHOOK_ALLOW_PRIVATE_URLS, w.resolver ?? dnsResolver),
    timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
  });
  w.lifecycle.onStart(() => heartbeat.start(config.HEARTBEAT_INTERVAL_SECONDS * 1000), "heartbeat");
  w.lifecycle.onShutdown(() => heartbeat.stop(), "heartbeat");
  return heartbeat;
}
