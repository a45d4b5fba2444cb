import type { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

// A commit detector that costs one pread instead of a read transaction (docs/decisions.md
// "Performance"). In WAL mode every commit — by this connection, another connection or
// another process — rewrites the WAL-index header at the start of the `-shm` file: its two 48-byte
// copies carry a change counter (iChange, +1 per commit), the last valid frame and the salts
// (https://sqlite.org/walformat.html, "The WAL-Index Header"). A writer publishes a commit by
// writing copy 2, then copy 1, and readers only trust a header whose copies agree; so while all
// 96 bytes are as they were, no commit has become visible since. `PRAGMA data_version`, the
// statement this replaces on a hit, takes and releases a WAL read lock (two fcntl calls) each time.
// The file is read through a read-only descriptor (the page cache SQLite's mapping writes to):
// nothing here can write to it, and a shrinking file cannot fault a read the way a mapping could.

const HEADER_BYTES = 96;

export class WalIndexHeader {
  private constructor(private fd: number | null) {}

  /** The database's header reader, or null when it has no `-shm` file (not WAL, in memory). */
  static of(sqlite: Database): WalIndexHeader | null {
    const existing = open.get(sqlite);
    if (existing !== undefined) return existing;
    let reader: WalIndexHeader | null = null;
    const file = sqlite.filename;
    if (file && file !== ":memory:") {
      try {
        reader = new WalIndexHeader(openSync(`${file}-shm`, "r"));
      } catch {
        reader = null;
      }
    }
    open.set(sqlite, reader);
    return reader;
  }

  /** Closes the descriptor (openDatabase's close()); later reads report "changed". */
  static release(sqlite: Database): void {
    open.get(sqlite)?.close();
    open.delete(sqlite);
  }

  /**
   * Copies the header into `into` and returns true when it differs from what `into` held, i.e.
   * when a commit may have happened since the caller's previous read (or the read failed).
   */
  changedSince(into: Uint8Array): boolean {
    const now = scratch;
    if (!this.readStart(now)) return true;
    let same = true;
    for (let i = 0; i < HEADER_BYTES; i++) {
      if (now[i] !== into[i]) {
        same = false;
        break;
      }
    }
    if (!same) into.set(now);
    return !same;
  }

  /**
   * The WAL's last committed frame (`mxFrame`, header offset 16) and how many frames a checkpoint
   * has copied back into the database (`nBackfill`, offset 96, the checkpoint info after the two
   * header copies); null when the file cannot be read or a commit is being published (the two
   * copies differ). Native byte order, as SQLite writes them.
   */
  frames(): WalFrames | null {
    const buf = framesScratch;
    if (!this.readStart(buf)) return null;
    for (let i = 0; i < HEADER_BYTES / 2; i++) if (buf[i] !== buf[HEADER_BYTES / 2 + i]) return null;
    const view = new DataView(buf.buffer, buf.byteOffset, FRAMES_BYTES);
    return { last: view.getUint32(16, LITTLE_ENDIAN), backfilled: view.getUint32(96, LITTLE_ENDIAN) };
  }

  /** A buffer for changedSince(), holding no header yet (the first call reports a change). */
  static buffer(): Uint8Array {
    return new Uint8Array(HEADER_BYTES).fill(0xff);
  }

  /** Fills `into` from the start of the -shm file; false when it is closed or short. */
  private readStart(into: Uint8Array): boolean {
    if (this.fd === null) return false;
    try {
      return readSync(this.fd, into, 0, into.length, 0) === into.length;
    } catch {
      return false;
    }
  }

  private close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Frames of the WAL (./wal-checkpointer.ts): committed, and copied back by checkpoints. */
export interface WalFrames {
  last: number;
  backfilled: number;
}

const open = new WeakMap<Database, WalIndexHeader | null>();
const scratch = new Uint8Array(HEADER_BYTES);
const FRAMES_BYTES = 100;
const framesScratch = new Uint8Array(FRAMES_BYTES);
const LITTLE_ENDIAN = endianness() === "LE";

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
