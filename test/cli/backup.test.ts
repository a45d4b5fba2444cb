import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_EMAIL } from "../helpers/context.ts";
import {
  childEnv,
  freePort,
  loginOver,
  type RunningService,
  run,
  SOURCE_CLI,
  startService,
} from "./process-helpers.ts";

// `trading-agent backup PATH`: a consistent online copy (VACUUM INTO) taken while the running
// service writes; the copy passes integrity_check and holds a prefix of the writes.

let dir: string;
let dbPath: string;
let svc: RunningService;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "trading-agent-backup-"));
  dbPath = join(dir, "data", "trading.db");
  svc = await startService([...SOURCE_CLI, "serve"], {
    cwd: dir,
    env: childEnv({ DATABASE_PATH: dbPath, PORT: String(freePort()), HOST: "127.0.0.1" }),
  });
  token = await loginOver(svc.url);
});

afterAll(async () => {
  if (svc.proc.exitCode === null) await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

const backup = (args: string[], extra: Record<string, string> = {}) =>
  run([...SOURCE_CLI, "backup", ...args], { cwd: dir, env: childEnv({ DATABASE_PATH: dbPath, ...extra }) });

async function createKey(name: string): Promise<void> {
  const res = await fetch(`${svc.url}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name, scopes: ["signals"] }),
  });
  if (res.status !== 201) throw new Error(`create key: ${res.status} ${await res.text()}`);
}

test("a backup taken while the service writes is consistent and holds the writes made before it", async () => {
  let written = 0;
  let writing = true;
  const writer = (async () => {
    while (writing) await createKey(`load-${++written}`);
  })();
  // Let the writes start before the backup does.
  while (written < 20) await new Promise((r) => setImmediate(r));
  const before = written;
  const dest = join(dir, "backups", "during-writes.db");
  mkdirSync(join(dir, "backups"));

  const r = await backup([dest]);
  const after = written;
  writing = false;
  await writer;

  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.stdout).toMatch(
    new RegExp(
      `^backup written to ${dest.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(\\d+ bytes, \\d+ tables, integrity ok\\)\\n$`,
    ),
  );
  expect(after).toBeGreaterThan(before); // the service kept writing while the backup ran

  const copy = new Database(dest, { readonly: true });
  try {
    expect(copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all()).toEqual([
      { integrity_check: "ok" },
    ]);
    expect(copy.query<{ foreign_key_check: string }, []>("PRAGMA foreign_key_check").all()).toEqual([]);
    expect(copy.query<{ email: string }, []>("SELECT email FROM users").all()).toEqual([{ email: ADMIN_EMAIL }]);
    const keys = copy
      .query<{ name: string }, []>("SELECT name FROM api_keys WHERE name LIKE 'load-%'")
      .all()
      .map((k) => k.name);
    // A snapshot: every key up to some point, none missing in between.
    expect(keys.length).toBeGreaterThanOrEqual(before - 1);
    expect(keys.length).toBeLessThanOrEqual(after);
    const numbers = keys.map((k) => Number(k.slice(5))).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(copy.query<{ tag: string }, []>("SELECT tag FROM __migrations").all()).toEqual([
      { tag: "0000_init" },
      { tag: "0001_trading_controls" },
      { tag: "0002_signal_token_index" },
      { tag: "0003_copy_trading" },
      { tag: "0004_portfolio_snapshots" },
      { tag: "0005_unfinished_signals_index" },
      { tag: "0006_signal_hooks" },
      { tag: "0007_box_on_the_internet" },
      { tag: "0008_position_exit_config" },
    ]);
  } finally {
    copy.close();
  }
  // No temporary file is left beside the backup.
  expect(readdirSync(join(dir, "backups"))).toEqual(["during-writes.db"]);
  // The service is unharmed.
  expect((await fetch(`${svc.url}/api/v1/health/live`)).status).toBe(200);
});

test("an existing PATH is refused (exit 1) unless --force", async () => {
  const dest = join(dir, "existing.db");
  writeFileSync(dest, "old");
  const refused = await backup([dest]);
  expect(refused).toEqual({
    code: 1,
    stdout: "",
    stderr: `error: ${dest} already exists (use --force to replace it)\n`,
  });
  const forced = await backup([dest, "--force"]);
  expect(forced.code).toBe(0);
  const copy = new Database(dest, { readonly: true });
  expect(copy.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
  copy.close();
});

test("runtime failures exit 1: no database, missing directory, the database itself", async () => {
  const missingDb = join(dir, "nothing-here.db");
  expect(await backup([join(dir, "x.db")], { DATABASE_PATH: missingDb })).toEqual({
    code: 1,
    stdout: "",
    stderr: `error: no database at ${missingDb}\n`,
  });
  expect(existsSync(missingDb)).toBe(false);
  const noDir = join(dir, "no", "such", "dir", "b.db");
  expect(await backup([noDir])).toEqual({
    code: 1,
    stdout: "",
    stderr: `error: directory ${join(dir, "no", "such", "dir")} does not exist\n`,
  });
  expect(await backup([dbPath])).toEqual({
    code: 1,
    stdout: "",
    stderr: "error: the backup path is the database itself\n",
  });
});

test("usage errors exit 2", async () => {
  expect(await backup([])).toEqual({
    code: 2,
    stdout: "",
    stderr: "error: backup needs a destination PATH\nRun 'trading-agent backup --help' for usage.\n",
  });
  expect(await backup(["a.db", "b.db"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "error: backup takes one PATH\nRun 'trading-agent backup --help' for usage.\n",
  });
});

test("the service still stops cleanly after the backups", async () => {
  expect(await svc.stop()).toBe(0);
  const db = new Database(dbPath, { readonly: true });
  expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
  db.close();
});
