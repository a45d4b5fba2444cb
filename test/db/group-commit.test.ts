import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { GroupCommit } from "../../src/db/group-commit.ts";
import { tempDatabasePerTest } from "../helpers/temp-database.ts";

// src/db/group-commit.ts: writes parked in one turn share one commit, each in its own savepoint.

const db = tempDatabasePerTest("group-commit-", "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");

const rows = () =>
  db.handle.sqlite
    .query<{ v: string }, []>("SELECT v FROM t ORDER BY id")
    .all()
    .map((r) => r.v);
const insert = (v: string) =>
  db.handle.sqlite.query("INSERT INTO t (v) VALUES (?) RETURNING id").get(v) as { id: number };

test("one commit for a turn's writes; a write that throws is rolled back alone and only its caller sees it", async () => {
  let afterCommit = 0;
  const gc = new GroupCommit(db.handle, { afterCommit: () => afterCommit++ });
  const results = await Promise.allSettled([
    gc.write(() => insert("a").id),
    gc.write(() => {
      insert("b");
      throw new Error("refused after its insert");
    }),
    gc.write(() => insert("a").id), // UNIQUE: SQLite refuses the statement
    gc.write(() => {
      // a write that opens its own (nested) transaction
      db.handle.sqlite.transaction(() => insert("c"))();
      return "nested";
    }),
    gc.write(() => insert("d").id),
  ]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled", "fulfilled"]);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe("refused after its insert");
  expect(String((results[2] as PromiseRejectedResult).reason)).toContain("UNIQUE");
  expect((results[3] as PromiseFulfilledResult<string>).value).toBe("nested");
  expect(rows()).toEqual(["a", "c", "d"]);
  expect(gc.commits).toBe(1);
  expect(gc.items).toBe(5);
  expect(afterCommit).toBe(1);
  expect(db.handle.sqlite.inTransaction).toBe(false);

  // The next turn commits again, the statements reused.
  await gc.write(() => insert("e"));
  expect(gc.commits).toBe(2);
  expect(afterCommit).toBe(2);
  expect(rows()).toEqual(["a", "c", "d", "e"]);
});

test("every caller resumes after the commit: its row is visible to another connection by then", async () => {
  const gc = new GroupCommit(db.handle);
  const other = openDatabase(db.path, { migrate: false });
  try {
    const seen = await Promise.all(
      ["x", "y"].map(async (v) => {
        await gc.write(() => insert(v));
        return other.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM t WHERE v = ?").get(v)!.n;
      }),
    );
    expect(seen).toEqual([1, 1]);
  } finally {
    other.close();
  }
});

test("atBatchEnd: once per batch, after its writes and before its commit; a failing one rolls the batch back", async () => {
  const gc = new GroupCommit(db.handle);
  const ends: string[][] = [];
  const once = () => ends.push(rows());
  await Promise.all(
    ["a", "b", "c"].map((v) =>
      gc.write(() => {
        insert(v);
        gc.atBatchEnd("seen", once);
      }),
    ),
  );
  // Ran once, seeing every write of the batch, inside the transaction (another key would run too).
  expect(ends).toEqual([["a", "b", "c"]]);
  expect(gc.commits).toBe(1);

  // The next batch registers again: nothing is left over from the last one.
  await gc.write(() => insert("d"));
  expect(ends).toHaveLength(1);

  const failing = await Promise.allSettled(
    ["e", "f"].map((v) =>
      gc.write(() => {
        insert(v);
        gc.atBatchEnd("refuses", () => {
          throw new Error("batch end refused");
        });
      }),
    ),
  );
  expect(failing.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  expect(String((failing[0] as PromiseRejectedResult).reason)).toContain("batch end refused");
  expect(rows()).toEqual(["a", "b", "c", "d"]);
  expect(db.handle.sqlite.inTransaction).toBe(false);

  // A write of the following batch does not inherit the failed hook.
  await gc.write(() => insert("g"));
  expect(rows()).toEqual(["a", "b", "c", "d", "g"]);

  expect(() => gc.atBatchEnd("outside", once)).toThrow("inside a group commit");
});
