import type { Database } from "bun:sqlite";
import type { Logger } from "../logger.ts";
import { WalIndexHeader } from "./wal-index-header.ts";

// WAL checkpoints off the event loop (docs/decisions.md "Monitor tick"). By default SQLite runs a
// checkpoint inside the commit that takes the WAL past 1,000 frames: the commit copies the frames
// back into the database file and fsyncs it, on the thread that committed — for this service the
// event loop, in the middle of a monitor tick or a request. Instead the service's connection
// commits without checkpointing (`wal_autocheckpoint = 0`) and, when the WAL is at least as long
// as SQLite's own threshold and holds frames no checkpoint has copied yet, a worker thread with its
// own connection runs a PASSIVE checkpoint (./checkpoint-worker.ts). A complete checkpoint lets the
// next commit start the WAL again from its beginning, as SQLite's automatic checkpoint does.
//
// The worker starts on the first checkpoint needed (a thread costs megabytes of RSS; a service whose WAL
// never reaches the threshold never starts one). If it cannot start or fails, the connection goes
// back to SQLite's automatic checkpoints: the WAL never grows unchecked. Closing the database
// (openDatabase's close) still checkpoints and truncates the WAL.
//
// With REPLICA_URL it is not started: Litestream owns the checkpoints (src/composition/workers.ts,
// docs/decisions/replication.md "Checkpoints").

const SQLITE_AUTOCHECKPOINT_FRAMES = 1_000;

export type CheckpointRequest =
  | { kind: "open"; path: string; busyTimeoutMs: number }
  | { kind: "checkpoint" }
  | { kind: "close" };

export type CheckpointReply =
  | { kind: "ready" }
  | { kind: "done"; busy: number; log: number; checkpointed: number }
  | { kind: "closed" }
  | { kind: "failed"; message: string };

export interface WalCheckpointerOptions {
  sqlite: Database;
  logger: Logger;
  /** WAL length (frames) from which commits are checkpointed; SQLite's default threshold. */
  thresholdFrames?: number;
  /**
   * How often the WAL is looked at (a 100-byte read of the -shm file), besides the poll() after
   * each group commit; catches the commits of other writers (the monitor's price write).
   */
  pollMs?: number;
  /** How long the worker may take to open its connection before the fallback. */
  startTimeoutMs?: number;
  /** Starts the worker thread (tests give one that fails). */
  spawn?: () => Worker;
}

/** The worker's module: beside this file from source, an entry point of the compiled binary. */
function spawnCheckpointWorker(): Worker {
  // In an executable Bun names each entry point by its path from the entry points' common
  // directory (src/), in its virtual file system (build.ts).
  const compiled = /\$bunfs|~BUN/.test(import.meta.url);
  return new Worker(compiled ? "./db/checkpoint-worker.ts" : new URL("./checkpoint-worker.ts", import.meta.url).href);
}

export class WalCheckpointer {
  private readonly threshold: number;
  private header: WalIndexHeader | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private worker: Worker | null = null;
  private waiting: { resolve(m: CheckpointReply): void; reject(e: Error): void } | null = null;
  private running: Promise<void> | null = null;
  private state: "idle" | "started" | "fallback" | "stopped" = "idle";
  /** Checkpoints the worker ran (tests, the bench). */
  checkpoints = 0;

  constructor(private readonly o: WalCheckpointerOptions) {
    this.threshold = o.thresholdFrames ?? SQLITE_AUTOCHECKPOINT_FRAMES;
  }

  /** Moves checkpoints off the connection's commits; false (nothing changed) without a WAL index. */
  start(): boolean {
    if (this.state !== "idle") return this.state === "started";
    this.header = WalIndexHeader.of(this.o.sqlite);
    if (!this.header) return false;
    this.o.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
    this.state = "started";
    this.timer = setInterval(() => this.poll(), this.o.pollMs ?? 250);
    this.timer.unref?.();
    return true;
  }

  /** Whether a worker thread exists (started on the first checkpoint needed). */
  get workerStarted(): boolean {
    return this.worker !== null;
  }

  /**
   * Looks at the WAL; starts a checkpoint when none is running, the WAL is at least the threshold
   * long and some of it is not copied back yet: SQLite's own rule (its automatic checkpoint runs
   * after every commit once the WAL holds 1,000 frames). Counting only the frames not yet copied
   * let a WAL that a checkpoint never quite caught up with grow without end: it restarts from its
   * beginning only after a checkpoint that copied everything.
   */
  poll(): void {
    if (this.state !== "started" || this.running) return;
    const f = this.header?.frames();
    if (!f || f.last < this.threshold || f.backfilled >= f.last) return;
    this.running = this.checkpoint().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no checkpoint is running. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Stops polling and the worker; the connection checkpoints its commits again until closed. */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    const wasStarted = this.state === "started";
    this.state = "stopped";
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.closeWorker();
    if (wasStarted) this.restoreAutocheckpoint();
  }

  private async checkpoint(): Promise<void> {
    try {
      const worker = this.worker ?? (await this.startWorker());
      const r = await this.ask(worker, { kind: "checkpoint" });
      if (r.kind === "done") this.checkpoints++;
      // A PASSIVE checkpoint reports contention in its result, not as an error: a failure is the
      // connection's or the file's, and the committing connection takes the checkpoints back.
      else if (r.kind === "failed") throw new Error(r.message);
    } catch (err) {
      if (this.state === "started") this.fallBack(err);
    }
  }

  private async startWorker(): Promise<Worker> {
    const worker = (this.o.spawn ?? spawnCheckpointWorker)();
    worker.unref();
    worker.addEventListener("error", (e) => this.settle(new Error((e as ErrorEvent).message || "worker error")));
    worker.addEventListener("message", (e) => this.settle((e as MessageEvent<CheckpointReply>).data));
    worker.addEventListener("close", () => {
      this.settle(new Error("the checkpoint worker exited"));
      if (this.worker === worker && this.state === "started") this.fallBack(new Error("the checkpoint worker exited"));
    });
    this.worker = worker;
    const busyTimeoutMs = this.o.sqlite.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout ?? 5_000;
    const opened = await this.ask(
      worker,
      { kind: "open", path: this.o.sqlite.filename, busyTimeoutMs },
      this.o.startTimeoutMs ?? 10_000,
    );
    if (opened.kind !== "ready") throw new Error(opened.kind === "failed" ? opened.message : "unexpected reply");
    this.o.logger.info("WAL checkpoints run in a worker thread", { thresholdFrames: this.threshold });
    return worker;
  }

  private ask(worker: Worker, m: CheckpointRequest, timeoutMs?: number): Promise<CheckpointReply> {
    return new Promise<CheckpointReply>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? null
          : setTimeout(() => this.settle(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      this.waiting = {
        resolve: (r) => {
          if (timer) clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          if (timer) clearTimeout(timer);
          reject(e);
        },
      };
      worker.postMessage(m);
    });
  }

  private settle(r: CheckpointReply | Error): void {
    const w = this.waiting;
    this.waiting = null;
    if (!w) return;
    if (r instanceof Error) w.reject(r);
    else w.resolve(r);
  }

  /** The worker could not start or died: SQLite's own checkpoints again, and one now. */
  private fallBack(err: unknown): void {
    if (this.state !== "started") return;
    this.state = "fallback";
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const worker = this.worker;
    this.worker = null;
    worker?.terminate();
    this.o.logger.warn("WAL checkpoints return to the committing connection: the checkpoint worker failed", {
      reason: err instanceof Error ? err.message : String(err),
    });
    this.restoreAutocheckpoint();
    try {
      this.o.sqlite.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // the next commit past the threshold checkpoints
    }
  }

  private async closeWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    try {
      await this.ask(worker, { kind: "close" }, 2_000);
    } catch {
      // terminated below either way
    }
    worker.terminate();
  }

  private restoreAutocheckpoint(): void {
    try {
      this.o.sqlite.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_FRAMES}`);
    } catch {
      // the connection is closed already
    }
  }
}

/** With REPLICA_URL Litestream owns the checkpoints: the service's connection never runs one. */
export function leaveCheckpointsToReplication(sqlite: Database): void {
  sqlite.exec("PRAGMA wal_autocheckpoint = 0");
}
