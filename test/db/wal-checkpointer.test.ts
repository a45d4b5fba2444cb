import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import { WalCheckpointer } from "../../src/db/wal-checkpointer.ts";
import { WalIndexHeader } from "../../src/db/wal-index-header.ts";
import { createLogger } from "../../src/logger.ts";

// docs/decisions.md "Monitor tick": the service's connection commits without checkpointing and a
// worker thread copies the WAL back once it holds SQLite's threshold of uncopied frames. The poll
// is driven by hand here (the service's timer calls the same poll()).

let dir: string;
let handle: DatabaseHandle;
let logs: Array<Record<string, unknown>>;
let checkpointer: WalCheckpointer | null;
const logger = () =>
  createLogger({ level: "debug", write: (line: string) => logs.push(JSON.parse(line)) } as Parameters<
    typeof createLogger
  >[0]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wal-checkpointer-"));
  handle = openDatabase(join(dir, "t.db"), { migrate: false });
  handle.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
  logs = [];
  checkpointer = null;
});
afterEach(async () => {
  await checkpointer?.stop();
  handle.close();
  rmSync(dir, { recursive: true, force: true });
});

/** About one 4 KiB page per row, in one commit. */
function writePages(n: number, from = 0): void {
  const insert = handle.sqlite.query<unknown, [number, Uint8Array]>("INSERT INTO t (id, body) VALUES (?, ?)");
  handle.sqlite.transaction(() => {
    for (let i = 0; i < n; i++) insert.run(from + i, crypto.getRandomValues(new Uint8Array(3_900)));
  })();
}

const frames = () => WalIndexHeader.of(handle.sqlite)!.frames()!;
const autocheckpoint = () =>
  handle.sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint;

test("without it, the commit that passes 1,000 frames checkpoints in line (what it takes off the event loop)", () => {
  writePages(1_200);
  const f = frames();
  expect(f.last).toBeGreaterThan(1_000);
  expect(f.backfilled).toBe(f.last);
});

test("commits no longer checkpoint; the worker copies the WAL back once 1,000 frames wait", async () => {
  checkpointer = new WalCheckpointer({ sqlite: handle.sqlite, logger: logger(), pollMs: 3_600_000 });
  expect(checkpointer.start()).toBe(true);
  expect(autocheckpoint()).toBe(0);

  writePages(600);
  checkpointer.poll();
  await checkpointer.idle();
  expect(checkpointer.workerStarted).toBe(false); // below the threshold: no thread at all
  expect(frames().backfilled).toBe(0);

  writePages(600, 600);
  const before = frames();
  expect(before.last).toBeGreaterThan(1_000);
  expect(before.backfilled).toBe(0); // the commit did not checkpoint
  checkpointer.poll();
  await checkpointer.idle();
  expect(checkpointer.workerStarted).toBe(true);
  expect(checkpointer.checkpoints).toBe(1);
  expect(frames().backfilled).toBe(frames().last);
  expect(logs.map((l) => l.msg)).toContain("WAL checkpoints run in a worker thread");

  // Writes go on while the worker copies; nothing is lost.
  writePages(1_100, 2_000);
  checkpointer.poll();
  writePages(50, 5_000);
  await checkpointer.idle();
  expect(checkpointer.checkpoints).toBe(2);
  await checkpointer.stop();
  expect(autocheckpoint()).toBe(1_000);
  handle.close();
  const reopened = new Database(join(dir, "t.db"), { readonly: true });
  expect(reopened.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()!.n).toBe(1_200 + 1_100 + 50);
  reopened.close();
  handle = openDatabase(join(dir, "t.db"), { migrate: false });
});

test("a long WAL left partly copied is checkpointed on the next look, so the next commit starts it again", async () => {
  checkpointer = new WalCheckpointer({ sqlite: handle.sqlite, logger: logger(), pollMs: 3_600_000 });
  checkpointer.start();
  writePages(1_200);
  // A reader's snapshot at frame ≈ 1,200 keeps the checkpoint from copying what is written after it.
  const reader = new Database(join(dir, "t.db"), { readonly: true });
  try {
    reader.exec("BEGIN");
    reader.query("SELECT count(*) FROM t").get();
    writePages(300, 5_000);
    checkpointer.poll();
    await checkpointer.idle();
    const partial = frames();
    expect(partial.last).toBeGreaterThan(1_400);
    expect(partial.backfilled).toBeLessThan(partial.last);
    expect(partial.last - partial.backfilled).toBeLessThan(1_000); // under the threshold: what stayed behind
  } finally {
    reader.exec("COMMIT");
    reader.close();
  }
  // The WAL is long (≥ 1,000 frames) and not all copied: the next look checkpoints the rest...
  checkpointer.poll();
  await checkpointer.idle();
  expect(frames().backfilled).toBe(frames().last);
  // ...and the next commit starts the WAL from its beginning instead of appending to 1,500 frames.
  writePages(5, 9_000);
  expect(frames().last).toBeLessThan(50);
});

test("a worker that cannot start: the connection checkpoints its commits again, and once at once", async () => {
  checkpointer = new WalCheckpointer({
    sqlite: handle.sqlite,
    logger: logger(),
    pollMs: 3_600_000,
    spawn: () => new Worker(new URL("./no-such-worker.ts", import.meta.url).href),
  });
  checkpointer.start();
  writePages(1_200);
  expect(frames().backfilled).toBe(0);
  checkpointer.poll();
  await checkpointer.idle();
  expect(autocheckpoint()).toBe(1_000);
  expect(frames().backfilled).toBe(frames().last);
  const warn = logs.find((l) => l.level === "warn");
  expect(warn?.msg).toBe("WAL checkpoints return to the committing connection: the checkpoint worker failed");
  // Later polls do nothing more; SQLite's own threshold applies again.
  writePages(1_200, 10_000);
  expect(frames().backfilled).toBe(frames().last);
});

test("a worker that never answers is given up after its start timeout", async () => {
  checkpointer = new WalCheckpointer({
    sqlite: handle.sqlite,
    logger: logger(),
    pollMs: 3_600_000,
    startTimeoutMs: 50,
    spawn: () => new Worker(URL.createObjectURL(new Blob(["self.onmessage = () => {};"]))),
  });
  checkpointer.start();
  writePages(1_200);
  checkpointer.poll();
  await checkpointer.idle();
  expect(autocheckpoint()).toBe(1_000);
  expect(String(logs.find((l) => l.level === "warn")?.reason)).toContain("no answer within 50 ms");
});

test("a checkpoint the worker reports failed: the connection checkpoints its commits again", async () => {
  const script = `self.onmessage = (e) => self.postMessage(e.data.kind === "open" ? { kind: "ready" } : { kind: "failed", message: "disk I/O error" });`;
  checkpointer = new WalCheckpointer({
    sqlite: handle.sqlite,
    logger: logger(),
    pollMs: 3_600_000,
    spawn: () => new Worker(URL.createObjectURL(new Blob([script]))),
  });
  checkpointer.start();
  writePages(1_200);
  checkpointer.poll();
  await checkpointer.idle();
  expect(checkpointer.checkpoints).toBe(0);
  expect(autocheckpoint()).toBe(1_000);
  expect(frames().backfilled).toBe(frames().last);
  expect(logs.filter((l) => l.level === "warn").map((l) => l.reason)).toEqual(["disk I/O error"]);
});

test("an in-memory database has no WAL: nothing changes", () => {
  const mem = openDatabase(":memory:", { migrate: false });
  try {
    checkpointer = new WalCheckpointer({ sqlite: mem.sqlite, logger: logger() });
    expect(checkpointer.start()).toBe(false);
  } finally {
    mem.close();
  }
});
