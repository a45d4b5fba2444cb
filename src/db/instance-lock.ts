import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConflictError } from "../errors.ts";

// One service per data directory (issue 34 item 6; docs/decisions/operator-experience-iv.md).
// The database runs in WAL mode, which lets a second process open it: two monitors and two signal
// processors on the same rows. `serve` therefore holds an exclusive SQLite lock on a small file
// beside the database for its whole life. The operating system drops the lock when the process
// ends, however it ends (kill -9 included), so a stale lock cannot block the next start. The pid
// file beside it only names the holder in the second instance's message.

const LOCK_FILE = "trading-agent.lock";
const PID_FILE = "trading-agent.pid";

export interface InstanceLock {
  release(): void;
}

/** Takes the lock of the directory holding `databasePath`, or throws naming the running instance. */
export function acquireInstanceLock(databasePath: string, pid = process.pid): InstanceLock {
  if (databasePath === ":memory:") return { release() {} };
  const dir = dirname(resolve(databasePath));
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, LOCK_FILE);
  const pidPath = join(dir, PID_FILE);
  const db = new Database(lockPath, { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    // Held until the connection closes: never committed.
    db.exec("BEGIN EXCLUSIVE");
  } catch {
    db.close();
    const holder = readPid(pidPath);
    throw new ConflictError(
      `another trading-agent${holder ? ` (pid ${holder})` : ""} is already running on ${dir}; stop it first, or give this one another DATABASE_PATH directory`,
    );
  }
  writeFileSync(pidPath, `${pid}\n`);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (readPid(pidPath) === String(pid)) rmSync(pidPath, { force: true });
      db.close();
    },
  };
}

function readPid(path: string): string | null {
  try {
    const text = readFileSync(path, "utf8").trim();
    return /^\d+$/.test(text) ? text : null;
  } catch {
    return null;
  }
}
