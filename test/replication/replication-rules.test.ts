import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findLitestream } from "../../src/db/replication/litestream-binary.ts";
import { litestreamConfig, parseReplicaUrl } from "../../src/db/replication/replica-url.ts";
import { ReplicationAlarm, type ReplicationAlert } from "../../src/db/replication/replication-alarm.ts";
import {
  caughtUp,
  parseLitestreamMetrics,
  type ReplicationFacts,
  replicationVerdict,
} from "../../src/db/replication/replication-status.ts";
import type { ReplicationReport } from "../../src/db/replication/replicator.ts";
import { EventBus } from "../../src/events/bus.ts";
import { eventMessage } from "../../src/notifications/telegram/messages.ts";

// The pure parts of replication (issue 36): REPLICA_URL, the YAML handed to Litestream, how its
// metrics become a verdict for /health, and the one-minute alert.

describe("REPLICA_URL", () => {
  test.each([
    ["s3://bucket/trading", "s3", "s3://bucket/trading"],
    ["sftp://backup:s3cr%24t@example.net:2222/srv/trading", "sftp", "sftp://example.net:2222/srv/trading"],
    ["file:///mnt/backup/trading", "file", "file:///mnt/backup/trading"],
  ])("%s is a %s replica shown as %s", (url, kind, display) => {
    expect(parseReplicaUrl(url)).toEqual({ kind: kind as "s3", url, display });
  });

  test.each([
    ["http://example.net/x", "must be an s3://, sftp:// or file:// URL"],
    ["not a url", "must be an s3://, sftp:// or file:// URL"],
    ["s3://bucket", "an s3:// URL names a bucket and a path in it: s3://BUCKET/PATH"],
    ["sftp://host", "an sftp:// URL names a host and a path: sftp://USER@HOST/PATH"],
    ["file://host/dir", "a file:// URL names an absolute directory: file:///mnt/backup/trading"],
  ])("%s is refused: %s", (url, error) => {
    expect(parseReplicaUrl(url)).toEqual({ error });
  });

  test("the YAML for an S3-compatible store: endpoint, path-style buckets, a region; no credentials", () => {
    const replica = parseReplicaUrl("s3://bucket/trading") as Exclude<
      ReturnType<typeof parseReplicaUrl>,
      { error: string }
    >;
    const yaml = litestreamConfig({
      databasePath: "/var/lib/trading/trading.db",
      replica,
      s3Endpoint: "https://s3.eu-central-003.backblazeb2.com",
      syncIntervalSeconds: 1,
      metricsAddress: "127.0.0.1:9999",
    });
    expect(JSON.parse(yaml)).toEqual({
      addr: "127.0.0.1:9999",
      dbs: [
        {
          path: "/var/lib/trading/trading.db",
          replicas: [
            {
              url: "s3://bucket/trading",
              "sync-interval": "1s",
              endpoint: "https://s3.eu-central-003.backblazeb2.com",
              "force-path-style": true,
              region: "us-east-1",
            },
          ],
        },
      ],
    });
  });
});

const METRICS = `# HELP litestream_shadow_wal_index x
litestream_shadow_wal_index{db="/d"} 2
litestream_shadow_wal_size{db="/d"} 49472
litestream_replica_wal_index{db="/d",name="s3"} 2
litestream_replica_wal_offset{db="/d",name="s3"} 45352
litestream_replica_operation_total{operation="LIST",replica_type="s3"} 3
litestream_replica_operation_total{operation="PUT",replica_type="s3"} 7
`;

test("Litestream's metrics: positions and requests; caught up when the replica holds the shadow WAL", () => {
  const p = parseLitestreamMetrics(METRICS);
  expect(p).toEqual({ shadow: { index: 2, size: 49472 }, replica: { index: 2, offset: 45352 }, replicaOperations: 10 });
  expect(caughtUp(p)).toBe(false);
  expect(caughtUp({ ...p, replica: { index: 2, offset: 49472 } })).toBe(true);
  expect(caughtUp({ ...p, replica: { index: 1, offset: 90000 } })).toBe(false);
  expect(caughtUp({ ...p, replica: null })).toBe(false);
  // Before Litestream's first sync both read 0: not known yet.
  expect(
    caughtUp({ shadow: { index: 0, size: 0 }, replica: { index: 0, offset: 0 }, replicaOperations: 0 }),
  ).toBeNull();
});

describe("the verdict /health shows", () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const base: ReplicationFacts = {
    now: t0 + 60_000,
    syncIntervalSeconds: 1,
    running: true,
    caughtUp: true,
    behindSince: null,
    lastErrorAt: null,
    downSince: null,
    startedAt: t0,
  };
  test.each<[string, Partial<ReplicationFacts>, ReturnType<typeof replicationVerdict>]>([
    ["caught up", {}, { status: "healthy", state: "replicating", lagSeconds: 0 }],
    [
      "behind for one sync interval",
      { caughtUp: false, behindSince: t0 + 59_000 },
      { status: "healthy", state: "replicating", lagSeconds: 1 },
    ],
    [
      "behind, seen so a moment ago (never the 0 of caught up)",
      { caughtUp: false, behindSince: t0 + 59_980 },
      { status: "healthy", state: "replicating", lagSeconds: 0.1 },
    ],
    [
      "behind with a write error, seen so this very millisecond",
      { caughtUp: false, behindSince: t0 + 60_000, lastErrorAt: t0 + 59_990 },
      { status: "unhealthy", state: "failing", lagSeconds: 0.1 },
    ],
    [
      "behind for 1.04 s: rounded up to the next tenth",
      { caughtUp: false, behindSince: t0 + 58_960 },
      { status: "healthy", state: "replicating", lagSeconds: 1.1 },
    ],
    [
      "behind for 5 s, no error",
      { caughtUp: false, behindSince: t0 + 55_000 },
      { status: "degraded", state: "behind", lagSeconds: 5 },
    ],
    [
      "behind with a write error 2 s ago",
      { caughtUp: false, behindSince: t0 + 58_500, lastErrorAt: t0 + 58_000 },
      { status: "unhealthy", state: "failing", lagSeconds: 1.5 },
    ],
    [
      "behind for 12 s without a word",
      { caughtUp: false, behindSince: t0 + 48_000 },
      { status: "unhealthy", state: "failing", lagSeconds: 12 },
    ],
    [
      "caught up, an old error",
      { lastErrorAt: t0 + 1_000 },
      { status: "healthy", state: "replicating", lagSeconds: 0 },
    ],
    [
      "Litestream not running",
      { running: false, downSince: t0 + 57_000 },
      { status: "unhealthy", state: "failing", lagSeconds: 3 },
    ],
    ["starting", { caughtUp: null, startedAt: t0 + 59_500 }, { status: "degraded", state: "starting", lagSeconds: 0 }],
    [
      "starting with an error",
      { caughtUp: null, startedAt: t0 + 59_000, lastErrorAt: t0 + 59_500 },
      { status: "unhealthy", state: "failing", lagSeconds: 0 },
    ],
  ])("%s", (_, facts, verdict) => {
    expect(replicationVerdict({ ...base, ...facts })).toEqual(verdict);
  });

  test("a 60 s sync interval (REPLICA_SYNC_INTERVAL_SECONDS) is not behind after 30 s", () => {
    expect(
      replicationVerdict({ ...base, syncIntervalSeconds: 60, caughtUp: false, behindSince: base.now - 30_000 }),
    ).toEqual({ status: "healthy", state: "replicating", lagSeconds: 30 });
  });
});

describe("the alert after a minute of failing", () => {
  const report = (state: ReplicationReport["state"], lagSeconds = 0): ReplicationReport => ({
    status: state === "failing" ? "unhealthy" : "healthy",
    state,
    lagSeconds,
    replica: "s3://bucket/trading",
    replicaRequests: 0,
    restarts: 0,
  });

  test("once per failing spell, after more than 60 s, again after a recovery", () => {
    const alerts: ReplicationAlert[] = [];
    const alarm = new ReplicationAlarm((a) => alerts.push(a));
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    alarm.observe(report("failing", 1), t0);
    alarm.observe(report("failing", 60), t0 + 60_000);
    expect(alerts).toEqual([]);
    alarm.observe(report("failing", 61), t0 + 61_000);
    alarm.observe(report("failing", 90), t0 + 90_000);
    expect(alerts).toEqual([
      {
        replica: "s3://bucket/trading",
        failingSince: "2026-01-01T00:00:00.000Z",
        lagSeconds: 61,
        message: "commits do not reach the replica",
      },
    ]);
    alarm.observe(report("replicating"), t0 + 100_000);
    alarm.observe(report("failing", 1), t0 + 200_000);
    alarm.observe(report("failing", 62), t0 + 262_000);
    expect(alerts).toHaveLength(2);
    expect(alerts[1]!.failingSince).toBe("2026-01-01T00:03:20.000Z");
  });

  test("the Telegram message says what, since when, and that trading goes on", () => {
    const bus = new EventBus();
    const e = bus.publish("replication.failing", "admin", {
      replica: "s3://bucket/trading",
      failingSince: "2026-01-01T00:00:00.000Z",
      lagSeconds: 61,
      message: "commits do not reach the replica",
    });
    expect(eventMessage(e, { agentName: null, tokenSymbol: null })).toBe(
      "🗄️ Backups: the database has not reached its replica s3://bucket/trading since 2026-01-01 00:00 UTC (61 s behind).\ncommits do not reach the replica\nTrading goes on; check the replica's reachability and credentials.",
    );
  });
});

describe("the Litestream binary", () => {
  test("npm's node wrapper on PATH (node_modules/.bin under npm test and npm start) is passed over for the binary it runs", () => {
    const bin = join(import.meta.dir, "../../node_modules/.bin");
    const found = findLitestream({ PATH: bin });
    expect(found).not.toBeNull();
    expect(found!.startsWith(bin)).toBe(false);
    expect(readFileSync(found!).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // ELF, not a script
  });
});
