import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import { PriceBarRepository } from "../../src/db/repositories/price-bars.ts";

// Issue 35 item 5: the price-history recorder asks every tick which tokens were signalled in its
// horizon. Reading every signal of the window to answer made each tick (every
// MONITOR_INTERVAL_SECONDS, on the request path's thread) cost more with every signal stored, while
// the answer is a handful of tokens. It is read token by token from the (token_address,
// created_at) index: the statement's plan never scans trading_signals.

let dir: string;
let db: DatabaseHandle;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "signalled-tokens-"));
  db = openDatabase(join(dir, "t.db"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function seed() {
  const now = "2026-01-10T00:00:00.000Z";
  db.sqlite
    .query("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u', 'u@x', 'x', ?, ?)")
    .run(now, now);
  const ins = db.sqlite.query(
    `INSERT INTO trading_signals (user_id, api_key_id, token_address, symbol, signal_type, signal_strength, processing_status, created_at, updated_at)
     VALUES ('u', NULL, ?, NULL, 'buy', 3, 'processed', ?, ?)`,
  );
  db.sqlite.transaction(() => {
    for (let i = 0; i < 2000; i++) ins.run("HOT", `2026-01-09T${String(i % 24).padStart(2, "0")}:00:00.000Z`, now);
    ins.run("OLD", "2025-12-01T00:00:00.000Z", now);
    ins.run("NEW", "2026-01-09T12:00:00.000Z", now);
  })();
}

test("the tokens signalled since a time: the right ones, read through the token index, never a scan of the signals", () => {
  seed();
  const bars = new PriceBarRepository(db.sqlite);
  expect(bars.tokensSignalledSince("2026-01-01T00:00:00.000Z").sort()).toEqual(["HOT", "NEW"]);
  expect(bars.tokensSignalledSince("2026-01-09T12:00:00.000Z")).toEqual(["HOT"]);
  expect(bars.tokensSignalledSince("2026-02-01T00:00:00.000Z")).toEqual([]);

  const plan = db.sqlite
    .query<{ detail: string }, [string]>(`EXPLAIN QUERY PLAN ${PriceBarRepository.SIGNALLED_TOKENS_SQL}`)
    .all("2026-01-01T00:00:00.000Z")
    .map((r) => r.detail);
  expect(plan.filter((d) => /SCAN trading_signals/.test(d) && !/COVERING INDEX|USING INDEX/.test(d))).toEqual([]);
  expect(plan.some((d) => d.includes("trading_signals_token_created_idx"))).toBe(true);
});
