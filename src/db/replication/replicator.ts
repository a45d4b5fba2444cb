import type { Database } from "bun:sqlite";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import { type LitestreamSettings, litestreamConfig } from "./replica-url.ts";
import {
  caughtUp,
  parseLitestreamMetrics,
  type ReplicationFacts,
  type ReplicationVerdict,
  replicationVerdict,
} from "./replication-status.ts";

// Litestream as a child process of the service (docs/decisions/replication.md "How it runs"):
// the operator sets REPLICA_URL and nothing else; the service writes Litestream's configuration
// into a private temporary directory (mode 0700, the file 0600), starts `litestream replicate`,
// restarts it with a back-off when it exits, reads its metrics every second (its positions tell
// whether every commit reached the replica) and its log for write errors, and stops it last on
// shutdown (SIGTERM: Litestream syncs what is left, bounded), after every writer has stopped.
// Nothing here is on a request's or a trade's path: a replica that does not answer only changes
// what /health and /metrics say.

export interface ReplicatorOptions {
  binary: string;
  settings: Omit<LitestreamSettings, "metricsAddress">;
  /** The child's whole environment (PATH, the AWS credentials); nothing else of the service's. */
  env: Record<string, string>;
  clock: Clock;
  logger: Logger;
  /** One small commit to the database: Litestream sends only after a change (retryIfStuck). */
  touch(): void;
  /** Hears each state read after a metrics read (the alarm). */
  onReport?: (r: ReplicationReport, now: number) => void;
  /** How often Litestream's metrics are read. */
  scrapeMs?: number;
  /** How long a stop waits for Litestream's last sync before it kills it. */
  stopTimeoutMs?: number;
}

export interface ReplicationReport extends ReplicationVerdict {
  /** The replica URL without credentials. */
  replica: string;
  /** Requests Litestream sent to the replica since the service started (cost). */
  replicaRequests: number;
  restarts: number;
}

const MAX_BACKOFF_MS = 30_000;
const HEALTHY_RUN_MS = 60_000;
const RETRY_STUCK_MS = 5_000;

export class Replicator {
  private child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  private dir: string | null = null;
  private port = 0;
  private stopping = false;
  private scrapeTimer: ReturnType<typeof setInterval> | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private backoffMs = 1_000;
  private retryMs = RETRY_STUCK_MS;
  private lastRetryAt = 0;
  private childStartedAt = 0;
  private startedAt = 0;
  private caughtUp: boolean | null = null;
  private behindSince: number | null = null;
  private lastErrorAt: number | null = null;
  private downSince: number | null = null;
  /** Operations counted by earlier Litestream processes (each starts its counters at 0). */
  private operationsBefore = 0;
  private operationsNow = 0;
  /** Litestream processes started after the first. */
  restarts = 0;
  /** Replica write errors Litestream logged. */
  errors = 0;

  constructor(private readonly o: ReplicatorOptions) {}

  start(): void {
    if (this.dir) return;
    this.startedAt = this.o.clock.now();
    this.dir = mkdtempSync(join(tmpdir(), "trading-agent-litestream-"));
    chmodSync(this.dir, 0o700);
    this.port = freePort();
    const file = join(this.dir, "litestream.yml");
    writeFileSync(file, litestreamConfig({ ...this.o.settings, metricsAddress: `127.0.0.1:${this.port}` }), {
      mode: 0o600,
    });
    this.spawn();
    this.scrapeTimer = setInterval(() => void this.scrape(), this.o.scrapeMs ?? 1_000);
    this.scrapeTimer.unref?.();
    this.o.logger.info("replicating the database with Litestream", {
      replica: this.o.settings.replica.display,
      syncIntervalSeconds: this.o.settings.syncIntervalSeconds,
    });
  }

  /** Stops Litestream after its last sync (bounded); removes its configuration. */
  async stop(): Promise<void> {
    if (this.stopping || !this.dir) return;
    this.stopping = true;
    if (this.scrapeTimer) clearInterval(this.scrapeTimer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (child) {
      child.kill("SIGTERM");
      const exited = await Promise.race([
        child.exited.then(() => true),
        Bun.sleep(this.o.stopTimeoutMs ?? 10_000).then(() => false),
      ]);
      if (!exited) {
        this.o.logger.warn("Litestream did not finish its last sync in time; stopped", {
          replica: this.o.settings.replica.display,
        });
        child.kill("SIGKILL");
        await child.exited;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** What /health and /metrics show. */
  report(): ReplicationReport {
    const facts: ReplicationFacts = {
      now: this.o.clock.now(),
      syncIntervalSeconds: this.o.settings.syncIntervalSeconds,
      running: this.child !== null,
      caughtUp: this.caughtUp,
      behindSince: this.behindSince,
      lastErrorAt: this.lastErrorAt,
      downSince: this.downSince,
      startedAt: this.startedAt,
    };
    return {
      ...replicationVerdict(facts),
      replica: this.o.settings.replica.display,
      replicaRequests: this.operationsBefore + this.operationsNow,
      restarts: this.restarts,
    };
  }

  /** Reads Litestream's positions once (the timer's step; tests call it to not wait a second). */
  async scrape(): Promise<void> {
    if (!this.child) return;
    let text: string;
    try {
      const res = await fetch(`http://127.0.0.1:${this.port}/metrics`, { signal: AbortSignal.timeout(1_000) });
      text = await res.text();
    } catch {
      return; // starting, or exiting: the process state says which
    }
    const p = parseLitestreamMetrics(text);
    this.operationsNow = p.replicaOperations;
    const up = caughtUp(p);
    if (up !== null) {
      this.caughtUp = up;
      if (up) this.behindSince = null;
      else this.behindSince ??= this.o.clock.now();
    }
    this.retryIfStuck();
  }

  /**
   * Litestream v0.3 retries a failed send only when the database changes again (its replica loop
   * waits for the next change it copies from the WAL; a restart does not send either): a replica
   * that comes back while the service writes nothing would stay behind. While failing, the
   * service makes one small commit (o.touch) at growing intervals, which sends what the replica
   * lacks as soon as it answers.
   */
  private retryIfStuck(): void {
    const r = this.report();
    this.o.onReport?.(r, this.o.clock.now());
    if (r.state !== "failing") {
      if (r.state === "replicating") this.retryMs = RETRY_STUCK_MS;
      return;
    }
    const now = this.o.clock.now();
    if (!this.child || now - this.lastRetryAt < this.retryMs) return;
    this.lastRetryAt = now;
    this.retryMs = Math.min(this.retryMs * 2, MAX_BACKOFF_MS);
    try {
      this.o.touch();
    } catch (err) {
      this.o.logger.warn("replication retry commit failed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private spawn(): void {
    const file = join(this.dir!, "litestream.yml");
    let child: Subprocess<"ignore", "pipe", "pipe">;
    try {
      // -exec: Litestream ends when its subprocess does, and the subprocess
      // ends when the service does: a service killed outright (kill -9, a crash outside systemd)
      // leaves no Litestream behind to run beside the next one on the same database.
      const watch = `sh -c 'while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done'`;
      child = Bun.spawn([this.o.binary, "replicate", "-no-expand-env", "-config", file, "-exec", watch], {
        env: this.o.env,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (err) {
      this.o.logger.error("Litestream could not be started", {
        binary: this.o.binary,
        error: err instanceof Error ? err.message : String(err),
      });
      this.exited(null);
      return;
    }
    this.child = child;
    this.childStartedAt = this.o.clock.now();
    this.downSince = null;
    this.caughtUp = null;
    void this.readLog(child.stdout);
    void this.readLog(child.stderr);
    void child.exited.then((code) => {
      if (this.child === child) this.exited(code);
    });
  }

  private exited(code: number | null): void {
    this.child = null;
    this.operationsBefore += this.operationsNow;
    this.operationsNow = 0;
    if (this.stopping) return;
    const now = this.o.clock.now();
    this.downSince ??= now;
    if (now - this.childStartedAt > HEALTHY_RUN_MS) this.backoffMs = 1_000;
    this.o.logger.warn("Litestream exited; restarting", { code, retryInMs: this.backoffMs });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.restarts++;
      this.spawn();
    }, this.backoffMs);
    this.restartTimer.unref?.();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  /** Litestream's log (slog text, on stdout): errors and warnings into the service's log. */
  private async readLog(stream: ReadableStream<Uint8Array>): Promise<void> {
    const password = passwordOf(this.o.settings.replica.url);
    let rest = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      for (const raw of lines) this.logLine(password ? raw.replaceAll(password, "***") : raw);
    }
  }

  private logLine(line: string): void {
    const level = /\blevel=(\w+)/.exec(line)?.[1];
    const msg = /\bmsg=("(?:[^"\\]|\\.)*"|\S+)/.exec(line)?.[1]?.replace(/^"|"$/g, "");
    const error = /\berror=("(?:[^"\\]|\\.)*"|\S+)/.exec(line)?.[1]?.replace(/^"|"$/g, "");
    if (level === "ERROR") {
      this.errors++;
      this.lastErrorAt = this.o.clock.now();
      this.o.logger.warn("Litestream: replication error", { message: msg, error });
    } else if (level === "WARN" && msg?.startsWith("init: cannot determine last wal position")) {
      // Every start after a clean stop: the close checkpointed and removed the WAL, so Litestream
      // starts a new generation with a snapshot (docs/decisions/replication.md "Checkpoints").
      this.o.logger.info("Litestream: the WAL was reset since its last run; a new generation starts");
    } else if (level === "WARN") {
      this.o.logger.warn("Litestream warning", { message: msg, error });
    } else if (level === "INFO" && msg && /generation|snapshot written/.test(msg)) {
      this.o.logger.info(`Litestream: ${msg}`);
    }
  }
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return "";
  }
}

/** A port on 127.0.0.1 free right now, for Litestream's metrics listener. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * The Replicator's `touch`: one small commit that changes nothing a reader sees. The header's
 * user_version counts these commits; nothing else in the service reads or sets it.
 */
export function touchUserVersion(sqlite: Database): void {
  const n = sqlite.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
  sqlite.exec(`PRAGMA user_version = ${(n + 1) % 2 ** 31}`);
}
