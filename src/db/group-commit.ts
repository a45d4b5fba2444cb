import type { Statement } from "bun:sqlite";
import type { SqliteHandle } from "./client.ts";

// Group commit (docs/decisions.md "Performance"): many small writes that arrive in the
// same turn of the event loop share ONE SQLite transaction and one commit. write(fn) parks `fn`;
// the first park of a turn schedules a flush (setImmediate, so that callers whose I/O completes
// in the same turn join); the flush runs every parked `fn` inside one immediate transaction, each
// in its own savepoint, so one that throws is rolled back alone
// and only its caller sees the error. Every caller's promise settles after the commit: nothing is
// reported done before it is durable. `fn` must be synchronous (no await inside a transaction).

interface Parked<T> {
  fn: () => T;
  resolve(v: T): void;
  reject(e: unknown): void;
}

export class GroupCommit {
  private parked: Array<Parked<unknown>> = [];
  private savepoints: { begin: Statement; release: Statement; rollback: Statement } | null = null;
  private scheduled = false;
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
        setImmediate(() => this.flush());
      }
    });
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
        })
        .immediate();
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
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
