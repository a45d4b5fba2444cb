import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { changeStamp } from "../../src/db/change-stamp.ts";
import { openDatabase } from "../../src/db/client.ts";
import { untilNextCommit, WalIndexHeader } from "../../src/db/wal-index-header.ts";
import { tempDatabasePerTest } from "../helpers/temp-database.ts";

// docs/decisions.md "Performance": the change stamp re-runs its statements only when the
// WAL-index header moved. Every kind of commit must move it; nothing else may be needed to see one.

const db = tempDatabasePerTest("wal-header-", "CREATE TABLE t (x INTEGER)");

test("the service's database has a header to read", () => {
  expect(WalIndexHeader.of(db.handle.sqlite)).not.toBeNull();
});

test("unchanged while nothing commits; moved by a commit of this connection", () => {
  const stamp = changeStamp(db.handle.sqlite);
  const first = stamp();
  expect(stamp()).toBe(first);
  db.handle.sqlite.query("SELECT count(*) FROM t").get();
  expect(stamp()).toBe(first);
  db.handle.sqlite.run("INSERT INTO t VALUES (1)");
  const second = stamp();
  expect(second).not.toBe(first);
  expect(stamp()).toBe(second);
});

test("moved by another connection's commit", () => {
  const stamp = changeStamp(db.handle.sqlite);
  const first = stamp();
  const other = new Database(db.path);
  other.exec("PRAGMA busy_timeout = 5000");
  other.run("INSERT INTO t VALUES (2)");
  other.close();
  expect(stamp()).not.toBe(first);
});

test("moved by another process's commit", () => {
  const stamp = changeStamp(db.handle.sqlite);
  const first = stamp();
  const script = `
    const { Database } = require("bun:sqlite");
    const db = new Database(process.argv[1]);
    db.exec("PRAGMA busy_timeout = 5000");
    db.run("INSERT INTO t VALUES (3)");
    db.close();`;
  expect(Bun.spawnSync([process.execPath, "-e", script, db.path]).exitCode).toBe(0);
  expect(stamp()).not.toBe(first);
});

test("inside a transaction, an uncommitted write of this connection moves it", () => {
  const stamp = changeStamp(db.handle.sqlite);
  const first = stamp();
  db.handle.sqlite.transaction(() => {
    db.handle.sqlite.run("INSERT INTO t VALUES (4)");
    expect(stamp()).not.toBe(first);
  })();
});

test("a database without a -shm file (in memory) still gets a working stamp", () => {
  const mem = openDatabase(":memory:", { migrate: false });
  mem.sqlite.exec("CREATE TABLE t (x INTEGER)");
  expect(WalIndexHeader.of(mem.sqlite)).toBeNull();
  const stamp = changeStamp(mem.sqlite);
  const first = stamp();
  mem.sqlite.run("INSERT INTO t VALUES (1)");
  expect(stamp()).not.toBe(first);
  mem.close();
});

test("the optimization itself: while nothing commits the statements run once, not per call", () => {
  // Without the header check (untilNextCommit returning `read` itself) this counts 100 runs.
  let runs = 0;
  const stamp = untilNextCommit(db.handle.sqlite, () => String(++runs));
  for (let i = 0; i < 100; i++) stamp();
  expect(runs).toBe(1);
  db.handle.sqlite.run("INSERT INTO t VALUES (1)");
  for (let i = 0; i < 100; i++) stamp();
  expect(runs).toBe(2);
});
