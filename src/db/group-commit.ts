import type { SqliteHandle } from "./client.ts";

// Group commit (docs/decisions.md "Performance (issue 16)"): many small writes that arrive in the
// same turn of the event loop share ONE SQLite transaction and one commit. write(fn) parks `fn`;
// the first park of a turn schedules a flush (setImmediate, so that callers whose I/O completes
// in the same turn join); the flush runs every parked `fn` inside one immediate transaction, each
// in its own savepoint (a nested bun:sqlite transaction), so one that throws is rolled back alone
// and only its caller sees the error. Every caller's promise settles after the commit: nothing is
// reported done before it is durable. `fn` must be synchronous (no await inside a transaction).

interface Parked<T> {
  fn: () => T;
  resolve(v: T): void;
  reject(e: unknown): void;
}

export class GroupCommit {
  private parked: Array<Parked<unknown>> = [];
  private scheduled = false;
  /** Commits so far and work items they carried (for the benchmark and tests). */
  commits = 0;
  items = 0;

  constructor(
    private readonly handle: SqliteHandle,
    private readonly maxBatch = 1_000,
  ) {}

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
    const results: Array<{ ok: true; v: unknown } | { ok: false; e: unknown }> = [];
    try {
      sqlite
        .transaction(() => {
          for (const p of batch) {
            try {
              results.push({ ok: true, v: sqlite.transaction(p.fn)() });
            } catch (e) {
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
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (r.ok) p.resolve(r.v);
      else p.reject(r.e);
    });
  }
}
