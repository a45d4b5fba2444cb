import type { Database } from "bun:sqlite";

// A commit detector that costs one pread instead of a read transaction (docs/decisions.md
// "Performance (issue 16)"). In WAL mode every commit — by this connection, another connection or
// another process — rewrites the WAL-index header at the start of the `-shm` file: its two 48-byte
// copies carry a change counter (iChange, +1 per commit), the last valid frame and the salts
// (https://sqlite.org/walformat.html, "The WAL-Index Header"). A writer publishes a commit by
// writing copy 2, then copy 1, and readers only trust a header whose copies agree; so while all
// 96 bytes are as they were, no commit has become visible since. `PRAGMA data_version`, the
// statement this replaces on a hit, takes and releases a WAL read lock (two fcntl calls) each time.
// The header is read through a shared mapping of the file (SQLite maps it the same way; a pread
// cost ≈ 2 µs more per request). A mapping faults if its file shrinks under it; SQLite truncates
// the `-shm` file only when a connection opens it while no other connection has it open, which
// cannot happen while the service's connection is open, and release() (run by openDatabase's
// close() before the connection closes) stops every read of the mapping. Nothing here writes to it.

const HEADER_BYTES = 96;
const WORDS = HEADER_BYTES / 4;

export class WalIndexHeader {
  private constructor(private words: Uint32Array | null) {}

  /** The database's header reader, or null when it has no `-shm` file (not WAL, in memory). */
  static of(sqlite: Database): WalIndexHeader | null {
    const existing = open.get(sqlite);
    if (existing !== undefined) return existing;
    let reader: WalIndexHeader | null = null;
    const file = sqlite.filename;
    if (file && file !== ":memory:") {
      try {
        const map = Bun.mmap(`${file}-shm`, { shared: true });
        if (map.byteLength >= HEADER_BYTES)
          reader = new WalIndexHeader(new Uint32Array(map.buffer, map.byteOffset, WORDS));
      } catch {
        reader = null;
      }
    }
    open.set(sqlite, reader);
    return reader;
  }

  /** Stops reading the mapping (openDatabase's close()); later reads report "changed". */
  static release(sqlite: Database): void {
    open.get(sqlite)?.close();
    open.delete(sqlite);
  }

  /**
   * Copies the header into `into` and returns true when it differs from what `into` held, i.e.
   * when a commit may have happened since the caller's previous read (or the read failed).
   */
  changedSince(into: Uint32Array): boolean {
    const words = this.words;
    if (words === null) return true;
    let same = true;
    for (let i = 0; i < WORDS; i++) {
      if (words[i] !== into[i]) {
        same = false;
        break;
      }
    }
    if (!same) into.set(words);
    return !same;
  }

  /** A buffer for changedSince(), holding no header yet (the first call reports a change). */
  static buffer(): Uint32Array {
    return new Uint32Array(WORDS).fill(0xffffffff);
  }

  private close(): void {
    this.words = null;
  }
}

const open = new WeakMap<Database, WalIndexHeader | null>();

/**
 * `read` (a stamp made of statements) re-run only when a commit may have happened since its last
 * run: outside a transaction, an unchanged WAL-index header means no connection committed, so no
 * row is different and the stamp it gave is still the stamp. Inside a transaction (uncommitted
 * writes of this connection move no header) and without a `-shm` file, `read` runs every time.
 */
export function untilNextCommit(sqlite: Database, read: () => string): () => string {
  const header = WalIndexHeader.of(sqlite);
  if (!header) return read;
  const seen = WalIndexHeader.buffer();
  let stamp = "";
  return () => {
    if (sqlite.inTransaction) return read();
    if (header.changedSince(seen)) stamp = read();
    return stamp;
  };
}
