import type { Statement } from "bun:sqlite";
import type { SqliteHandle } from "./client.ts";

// Group commit (docs/decisions.md "Performance"): many small writes that arrive in the
// same turn of the event loop share ONE SQLite transaction and one commit. write(fn) parks `fn`;
// the first park of a turn schedules a flush (two setImmediate turns later, so that callers whose
// I/O completes meanwhile join); the flush runs every parked `fn` inside one immediate
// transaction, each in its own savepoint, so one that throws is rolled back alone and only its
// caller sees the error. Every caller's promise settles after the commit: nothing is
// reported done before it is durable. `fn` must be synchronous (no await inside a transaction).
// Work that can be done once per commit instead of once per write (a count of the writes, a lookup
// that cannot change within the transaction) registers with atBatchEnd() from inside its `fn`.

interface Parked<T> {
  fn: () => T;
  resolve(v: T): void;
  reject(e: unknown): void;
}

export class GroupCommit {
  private parked: Array<Parked<unknown>> = [];
  private savepoints: { begin: Statement; release: Statement; rollback: Statement } | null = null;
  private scheduled = false;
  private readonly batchEnd = new Map<string, () => void>();
  /** Commits so far and work items they carried (for the benchmark and tests). */
  commits = 0;
  items = 0;

  private readonly maxBatch: number;

  constructor(
    private readonly handle: SqliteHandle,
    private readonly opts: {
      maxBatch?: number;
      /** Called after each commit (the WAL checkpointer looks at the WAL's length then). */
      afterCommit?: () => void;
    } = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 1_000;
  }

  write<T>(fn: () => T extends Promise<unknown> ? never : T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.parked.push({ fn, resolve, reject } as Parked<unknown>);
      if (!this.scheduled) {
        this.scheduled = true;
        // Two turns, not one: requests read in the next turn of the loop (their bodies still
        // arriving when the first write parked) join this commit. Under 32 concurrent signal
        // posts a commit carried about 20 writes after one turn and about 31 after two; a commit
        // costs as much as several inserts (docs/decisions/under-load.md). Idle, the second turn
        // comes at once.
        setImmediate(() => setImmediate(() => this.flush()));
      }
    });
  }

  /**
   * From inside a write's `fn`: runs `fn` once, after every write of the current batch and
   * before its commit, in the same transaction (one registration per key and batch; a later one
   * replaces it). If it throws, the whole batch is rolled back and every caller sees the error.
   */
  atBatchEnd(key: string, fn: () => void): void {
    if (!this.handle.sqlite.inTransaction) throw new Error("atBatchEnd() belongs inside a group commit's write");
    this.batchEnd.set(key, fn);
  }

  /** Commits everything parked now. */
  flush(): void {
    this.scheduled = false;
    while (this.parked.length > 0) this.commit(this.parked.splice(0, this.maxBatch));
  }

  private commit(batch: Array<Parked<unknown>>): void {
    const sqlite = this.handle.sqlite;
    // Savepoints by prepared statement: bun:sqlite's transaction() builds a new wrapper (with
    // defineProperties) on every call, a measurable share of a signal's CPU at one per write.
    const sp = (this.savepoints ??= {
      begin: sqlite.prepare("SAVEPOINT group_write"),
      release: sqlite.prepare("RELEASE group_write"),
      rollback: sqlite.prepare("ROLLBACK TO group_write"),
    });
    const results: Array<{ ok: true; v: unknown } | { ok: false; e: unknown }> = [];
    try {
      sqlite
        .transaction(() => {
          for (const p of batch) {
            sp.begin.run();
            try {
              const v = p.fn();
              sp.release.run();
              results.push({ ok: true, v });
            } catch (e) {
              sp.rollback.run();
              sp.release.run();
              results.push({ ok: false, e });
            }
          }
          for (const end of this.batchEnd.values()) end();
        })
        .immediate();
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    } finally {
      this.batchEnd.clear();
    }
    this.commits++;
    this.items += batch.length;
    this.opts.afterCommit?.();
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (r.ok) p.resolve(r.v);
      else p.reject(r.e);
    });
  }
}
