// How /health reports replication (docs/decisions/replication.md "Visible"): in the registry's
// words (healthy, degraded, unhealthy) plus the state that says why. The replica is caught up
// when Litestream's replica position equals its shadow WAL position (both read from its metrics:
// the frames it has taken from the database and the frames the replica has acknowledged). A
// replica that is behind longer than one sync interval plus a margin is "behind" (degraded);
// behind with a write error in the last 10 s, behind for 10 s past the interval, or a Litestream
// process that is not running is "failing" (unhealthy: not critical, so /health says degraded
// and answers 200: trading and the API never wait on the replica).

type ReplicationState = "starting" | "replicating" | "behind" | "failing";

export interface ReplicationFacts {
  /** Epoch ms. */
  now: number;
  syncIntervalSeconds: number;
  /** Whether the Litestream process is running now. */
  running: boolean;
  /** null until the first metrics read; then whether the replica holds every frame taken. */
  caughtUp: boolean | null;
  /** When the replica was first seen behind (null while caught up). */
  behindSince: number | null;
  /** The last replica write error Litestream logged. */
  lastErrorAt: number | null;
  /** When the process stopped (null while running). */
  downSince: number | null;
  startedAt: number;
}

export interface ReplicationVerdict {
  status: "healthy" | "degraded" | "unhealthy";
  state: ReplicationState;
  /** Seconds the oldest commit not on the replica yet has waited; 0 when caught up. */
  lagSeconds: number;
}

const ERROR_WINDOW_MS = 10_000;
const BEHIND_MARGIN_MS = 3_000;
const FAILING_MARGIN_MS = 10_000;

export function replicationVerdict(f: ReplicationFacts): ReplicationVerdict {
  const interval = f.syncIntervalSeconds * 1000;
  const since = f.behindSince ?? f.downSince;
  // Up to the next tenth, at least one: a replica known to be behind never shows the lag of one
  // caught up (0), even in the first milliseconds after it was seen behind.
  const rounded =
    (f.caughtUp === true && f.running) || since === null ? 0 : Math.max(0.1, Math.ceil((f.now - since) / 100) / 10);
  const recentError = f.lastErrorAt !== null && f.now - f.lastErrorAt <= ERROR_WINDOW_MS;
  if (!f.running && f.downSince !== null) return { status: "unhealthy", state: "failing", lagSeconds: rounded };
  if (f.caughtUp === null) {
    // The first metrics read comes within a second of the start; a Litestream that logs errors
    // before it (a refused connection, a wrong key) is failing, one that says nothing still starting.
    if (recentError || f.now - f.startedAt > interval + FAILING_MARGIN_MS)
      return { status: "unhealthy", state: "failing", lagSeconds: rounded };
    return { status: "degraded", state: "starting", lagSeconds: 0 };
  }
  if (f.caughtUp) return { status: "healthy", state: "replicating", lagSeconds: 0 };
  const behindMs = f.behindSince === null ? 0 : f.now - f.behindSince;
  if (recentError || behindMs > interval + FAILING_MARGIN_MS)
    return { status: "unhealthy", state: "failing", lagSeconds: rounded };
  if (behindMs > interval + BEHIND_MARGIN_MS) return { status: "degraded", state: "behind", lagSeconds: rounded };
  return { status: "healthy", state: "replicating", lagSeconds: rounded };
}

/** Litestream's positions from its Prometheus text: the shadow WAL's and the replica's. */
export interface LitestreamPositions {
  shadow: { index: number; size: number } | null;
  replica: { index: number; offset: number } | null;
  /** Requests to the replica since Litestream started (all operations). */
  replicaOperations: number;
}

export function parseLitestreamMetrics(text: string): LitestreamPositions {
  const values = new Map<string, number>();
  let operations = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line === "") continue;
    const m = /^([a-z_]+)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (m[1] === "litestream_replica_operation_total") operations += value;
    else values.set(m[1]!, value);
  }
  const num = (k: string) => values.get(k);
  const si = num("litestream_shadow_wal_index");
  const ss = num("litestream_shadow_wal_size");
  const ri = num("litestream_replica_wal_index");
  const ro = num("litestream_replica_wal_offset");
  return {
    shadow: si !== undefined && ss !== undefined ? { index: si, size: ss } : null,
    replica: ri !== undefined && ro !== undefined ? { index: ri, offset: ro } : null,
    replicaOperations: operations,
  };
}

/** The replica holds what the shadow WAL holds (false before Litestream has a replica position). */
export function caughtUp(p: LitestreamPositions): boolean | null {
  // Both read 0 until Litestream's first sync of the database (a shadow WAL holds its header at least).
  if (!p.shadow || p.shadow.size === 0) return null;
  if (!p.replica) return false;
  return p.replica.index === p.shadow.index && p.replica.offset >= p.shadow.size;
}
