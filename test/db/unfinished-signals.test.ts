import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import { SignalRepository } from "../../src/db/repositories/signals.ts";

// Issue 35 (ingest): the signals' status index held every signal stored, and each insert paid a
// B-tree write for it, though the only query on status (start-up recovery) asks for the few still
// undecided. The partial index (migration 0005) holds only those: a signal stored processed never
// enters it, a decided one leaves it, and recovery still reads it without scanning the signals.

let dir: string;
let db: DatabaseHandle;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "unfinished-signals-"));
  db = openDatabase(join(dir, "t.db"));
  const now = "2026-01-10T00:00:00.000Z";
  db.sqlite
    .query("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u', 'u@x', 'x', ?, ?)")
    .run(now, now);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const indexed = () =>
  db.sqlite
    .query<{ n: number }, []>(
      "SELECT count(*) AS n FROM trading_signals INDEXED BY trading_signals_unfinished_idx WHERE processing_status IN ('pending','processing')",
    )
    .get()!.n;

test("only undecided signals are indexed; recovery reads them oldest first through the index", () => {
  const repo = new SignalRepository(db.sqlite);
  const s = {
    tokenAddress: "T",
    symbol: null,
    signalType: "buy",
    activationReason: null,
    signalStrength: 3,
    source: null,
  };
  const ids: number[] = [];
  db.sqlite.transaction(() => {
    for (let i = 0; i < 500; i++) repo.insert("u", null, s, "2026-01-10T00:00:00.000Z", "processed");
    for (let i = 0; i < 3; i++) ids.push(repo.insert("u", null, s, "2026-01-10T00:00:01.000Z", "pending").id);
  })();
  repo.setStatus(ids[1] as number, "processing", "2026-01-10T00:00:02.000Z");
  expect(indexed()).toBe(3);
  expect(repo.unfinished().map((r) => r.id)).toEqual(ids);

  repo.setStatus(ids[0] as number, "processed", "2026-01-10T00:00:03.000Z");
  expect(indexed()).toBe(2);
  expect(repo.unfinished().map((r) => r.id)).toEqual(ids.slice(1));

  const plan = db.sqlite
    .query<{ detail: string }, []>(
      "EXPLAIN QUERY PLAN SELECT id, created_at AS createdAt FROM trading_signals WHERE processing_status IN ('pending','processing') ORDER BY id",
    )
    .all()
    .map((r) => r.detail)
    .join("\n");
  expect(plan).toContain("USING INDEX trading_signals_unfinished_idx");
  const names = db.sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'trading_signals'")
    .all()
    .map((r) => r.name);
  expect(names).not.toContain("trading_signals_status_idx");
});
