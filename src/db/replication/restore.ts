import { Database } from "bun:sqlite";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type RestoreSummary, restoreSummary } from "../repositories/restore-summary.ts";
import { litestreamConfig, type ReplicaTarget } from "./replica-url.ts";

// `trading-agent restore --from REPLICA_URL [--to DATABASE_PATH] [--timestamp ISO]`
// (docs/backups.md): Litestream fetches the latest copy (or the one at a point in time) into a
// temporary file beside the target; the copy must pass integrity_check; only then does it take the
// target's place. A database some process has open (the running service) is never replaced, and an
// existing one only with --force (it is kept beside as <name>.before-restore). A marker beside the
// database (<name>.restored) makes the next start reconcile live swaps with the chain before it
// opens the API (src/server.ts).

export class RestoreError extends Error {}

export interface RestoreOptions {
  replica: ReplicaTarget;
  /** The database file to create (DATABASE_PATH by default). */
  to: string;
  /** ISO 8601: the copy as it was at that time; absent: the latest. */
  timestamp?: string;
  force?: boolean;
  binary: string;
  /** Litestream's environment (PATH, the AWS credentials). */
  env: Record<string, string>;
  s3Endpoint?: string;
  region?: string;
}

export interface RestoreResult extends RestoreSummary {
  path: string;
  /** Where the database it replaced was kept (--force), else null. */
  replaced: string | null;
  /** The time restored to (--timestamp, as ISO 8601), or null for the latest copy. */
  timestamp: string | null;
}

export interface RestoreMarker {
  restoredAt: string;
  replica: string;
  timestamp: string | null;
}

const markerPath = (databasePath: string) => `${resolve(databasePath)}.restored`;

export function readRestoreMarker(databasePath: string): RestoreMarker | null {
  const path = markerPath(databasePath);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as RestoreMarker;
  } catch {
    return { restoredAt: "", replica: "", timestamp: null };
  }
}

export function clearRestoreMarker(databasePath: string): void {
  rmSync(markerPath(databasePath), { force: true });
}

export async function restoreDatabase(o: RestoreOptions): Promise<RestoreResult> {
  const to = resolve(o.to);
  const timestamp = o.timestamp === undefined ? undefined : isoTimestamp(o.timestamp);
  const holders = processesHolding([to, `${to}-wal`, `${to}-shm`]);
  if (holders.length > 0)
    throw new RestoreError(
      `${to} is open in process ${holders.join(", ")} (the service?): stop it before restoring over its database`,
    );
  if (!existsSync("/proc/self/fd") && existsSync(`${to}-shm`))
    throw new RestoreError(
      `${to}-shm exists: the service may be running on this database; stop it (a crashed service leaves the file too: remove it then)`,
    );
  if (existsSync(to) && !o.force) throw new RestoreError(`${to} already exists (use --force to replace it)`);
  mkdirSync(dirname(to), { recursive: true });

  const tmp = join(dirname(to), `.${basename(to)}.restore-${process.pid}.tmp`);
  const configDir = mkdtempSync(join(tmpdir(), "trading-agent-restore-"));
  chmodSync(configDir, 0o700);
  try {
    rmSync(tmp, { force: true });
    const config = join(configDir, "litestream.yml");
    writeFileSync(
      config,
      litestreamConfig({
        databasePath: to,
        replica: o.replica,
        s3Endpoint: o.s3Endpoint,
        region: o.region,
        syncIntervalSeconds: 1,
      }),
      { mode: 0o600 },
    );
    const args = ["restore", "-no-expand-env", "-config", config, "-o", tmp];
    if (timestamp) args.push("-timestamp", timestamp);
    const run = Bun.spawn([o.binary, ...args, to], { env: o.env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    if (code !== 0 || !existsSync(tmp))
      throw new RestoreError(litestreamFailure(`${err}\n${out}`, o.replica, timestamp));

    let summary: RestoreSummary;
    const copy = new Database(tmp, { readwrite: true, create: false });
    try {
      const verdict = copy
        .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
        .all()
        .map((r) => r.integrity_check)
        .join("; ");
      if (verdict !== "ok") throw new RestoreError(`the restored copy failed integrity_check: ${verdict}`);
      summary = restoreSummary(copy);
    } catch (e) {
      throw e instanceof RestoreError ? e : new RestoreError(`the restored copy cannot be read: ${String(e)}`);
    } finally {
      copy.close();
    }

    let replaced: string | null = null;
    if (existsSync(to)) {
      replaced = `${to}.before-restore`;
      for (const suffix of ["", "-wal", "-shm"]) {
        rmSync(`${replaced}${suffix}`, { force: true });
        if (existsSync(`${to}${suffix}`)) renameSync(`${to}${suffix}`, `${replaced}${suffix}`);
      }
    }
    for (const suffix of ["-wal", "-shm"]) rmSync(`${to}${suffix}`, { force: true });
    // Litestream's shadow WAL of the database replaced: it describes another file.
    rmSync(join(dirname(to), `.${basename(to)}-litestream`), { recursive: true, force: true });
    renameSync(tmp, to);
    const marker: RestoreMarker = {
      restoredAt: new Date().toISOString(),
      replica: o.replica.display,
      timestamp: timestamp ?? null,
    };
    writeFileSync(markerPath(to), `${JSON.stringify(marker)}\n`);
    return { path: to, replaced, timestamp: marker.timestamp, ...summary };
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${tmp}${suffix}`, { force: true });
    rmSync(configDir, { recursive: true, force: true });
  }
}

function isoTimestamp(text: string): string {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms))
    throw new RestoreError(`--timestamp must be an ISO 8601 time such as 2026-01-31T12:00:00Z`);
  return new Date(ms).toISOString();
}

/** Litestream's reason, in the operator's words where it has a usual cause. */
function litestreamFailure(output: string, replica: ReplicaTarget, timestamp: string | undefined): string {
  if (/no matching backups found|no snapshots available/.test(output))
    return timestamp
      ? `no copy of the database at ${replica.display} reaches back to ${timestamp}`
      : `no copy of the database at ${replica.display}`;
  const line = /error="((?:[^"\\]|\\.)*)"/.exec(output)?.[1] ?? output.trim().split("\n").filter(Boolean).at(-1) ?? "";
  const password = (() => {
    try {
      return decodeURIComponent(new URL(replica.url).password);
    } catch {
      return "";
    }
  })();
  return `Litestream could not restore from ${replica.display}: ${password ? line.replaceAll(password, "***") : line}`;
}

/**
 * Processes other than this one that have any of `paths` open, read from /proc (Linux). Without
 * /proc (macOS) SQLite's -shm file stands for an open (or crashed) service instead.
 */
function processesHolding(paths: string[]): number[] {
  if (!existsSync("/proc/self/fd")) return [];
  const wanted = new Set(paths);
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) {
          found.push(Number(pid));
          break;
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return found;
}
