import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { type ServerHandle, serve } from "../../src/server.ts";
import { ADMIN_EMAIL, offlineEnv } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";
import { countIn, LITESTREAM, untilReplicated } from "./litestream.ts";

// `trading-agent restore` (issue 36 item 3) against a file:// replica a real service wrote:
// what it prints, the integrity check, the refusals (a database a process has open, an existing
// file without --force, a time before the first copy), and the marker that makes the next start
// reconcile live swaps first.

const dirs: string[] = [];
const handles: ServerHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { PATH: process.env.PATH, ...offlineEnv, ...env },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** A service replicating to a fresh file:// replica, with two agents on it, caught up. */
async function replicated(): Promise<{ replica: string; handle: ServerHandle; before: string }> {
  const replica = `file://${tempDir("replica-")}/trading`;
  const dir = tempDir("service-");
  const config = loadConfig({
    ...offlineEnv,
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_PATH: join(dir, "trading.db"),
    REPLICA_URL: replica,
  });
  const handle = await serve(config, {
    services: { logger: createLogger({ level: "silent" }), passwordCost: { memoryCost: 1024, timeCost: 1 } },
  });
  handles.push(handle);
  const before = new Date(Date.now() - 60_000).toISOString();
  const admin = handle.database.sqlite
    .query<{ id: string }, [string]>("SELECT id FROM users WHERE email = ?")
    .get(ADMIN_EMAIL)!.id;
  handle.services.agents.create(admin, { name: "alpha" });
  handle.services.agents.create(admin, { name: "beta" });
  await untilReplicated(replica, "SELECT count(*) AS n FROM agents", 2);
  return { replica, handle, before };
}

describe.skipIf(!LITESTREAM)("trading-agent restore", () => {
  test("restores the latest copy, checks it, prints what it holds and marks the next start", async () => {
    const { replica } = await replicated();
    const to = join(tempDir("restored-"), "data", "trading.db");
    const r = await cli(["restore", "--from", replica, "--to", to]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        `restored ${to} from ${replica} (integrity ok)`,
        "  last transaction:     none",
        "  agents:               2",
        "  positions:            0 open, 0 in all",
        "  live journal entries: 0 (0 pending or unknown: the next start asks the chain before it opens the API)",
      ].join("\n"),
    );
    expect(countIn(to, "SELECT count(*) AS n FROM agents WHERE name IN ('alpha', 'beta')")).toBe(2);
    expect(JSON.parse(readFileSync(`${to}.restored`, "utf8"))).toMatchObject({ replica, timestamp: null });

    // The file exists now: not without --force; with it, the old one is kept beside.
    const again = await cli(["restore", "--from", replica, "--to", to]);
    expect(again).toMatchObject({ code: 1, err: `error: ${to} already exists (use --force to replace it)` });
    writeFileSync(`${to}-wal`, "");
    const forced = await cli(["restore", "--from", replica, "--to", to, "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain(`  the database it replaced: ${to}.before-restore`);
    expect(existsSync(`${to}.before-restore`)).toBe(true);
    expect(existsSync(`${to}-wal`)).toBe(false);
  }, 60_000);

  test("the restored database's audit log says so to every account: the replica and the time restored to", async () => {
    const { replica, handle } = await replicated();
    await handle.services.accounts.register("second@example.com", "Second!Passw0rd", true);
    await untilReplicated(replica, "SELECT count(*) AS n FROM users", 2);
    const to = join(tempDir("restored-"), "trading.db");
    const r = await cli(["restore", "--from", replica, "--to", to]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The owners read it through the service started on the restored file, as after a real restore.
    const config = loadConfig({ ...offlineEnv, HOST: "127.0.0.1", PORT: "0", DATABASE_PATH: to });
    const restored = await serve(config, {
      services: { logger: createLogger({ level: "silent" }), passwordCost: { memoryCost: 1024, timeCost: 1 } },
    });
    handles.push(restored);
    for (const [email, password] of [
      [ADMIN_EMAIL, offlineEnv.ADMIN_PASSWORD!],
      ["second@example.com", "Second!Passw0rd"],
    ] as const) {
      const login = await fetch(`${restored.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const res = await fetch(`${restored.url}/api/v1/audit-log?action=database.restored`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(res.status).toBe(200);
      const { entries } = (await res.json()) as { entries: Array<Record<string, unknown>> };
      expect(entries).toEqual([
        {
          id: expect.any(Number),
          at: expect.any(String),
          action: "database.restored",
          actor: "cli",
          ip: null,
          userAgent: null,
          target: replica,
          details: { replica, timestamp: null, lastTransactionAt: null },
        },
      ]);
    }
  }, 60_000);

  test("--timestamp: the database as it was then", async () => {
    const { replica, handle } = await replicated();
    const admin = handle.database.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM users WHERE email = ?")
      .get(ADMIN_EMAIL)!.id;
    const between = new Date().toISOString();
    await until(() => Date.now() > Date.parse(between) + 1_000, "a second on the clock");
    handle.services.agents.create(admin, { name: "gamma" });
    await untilReplicated(replica, "SELECT count(*) AS n FROM agents", 3);
    const then = join(tempDir("restored-"), "then.db");
    const r = await cli(["restore", "--from", replica, "--to", then, "--timestamp", between]);
    expect(r.err).toBe("");
    expect(countIn(then, "SELECT count(*) AS n FROM agents")).toBe(2);
    // The audit entry names the time restored to.
    expect(
      countIn(
        then,
        `SELECT count(*) AS n FROM audit_log WHERE action = 'database.restored' AND json_extract(details, '$.timestamp') = '${between}'`,
      ),
    ).toBe(1);
    const now = join(tempDir("restored-"), "now.db");
    expect((await cli(["restore", "--from", replica, "--to", now])).code).toBe(0);
    expect(countIn(now, "SELECT count(*) AS n FROM agents")).toBe(3);
  }, 60_000);

  test("refuses a database a running process has open", async () => {
    const { replica, handle } = await replicated();
    // The service's database, held by another process (the service as the operator runs it).
    const holder = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const {Database}=require("bun:sqlite");globalThis.held=new Database(${JSON.stringify(handle.database.path)});held.query("SELECT 1").get();setInterval(()=>held.query("SELECT 1").get(),1e3)`,
      ],
      { stdout: "ignore", stderr: "inherit" },
    );
    try {
      await until(() => {
        try {
          return readdirSync(`/proc/${holder.pid}/fd`).some(
            (fd) => readlinkSync(`/proc/${holder.pid}/fd/${fd}`) === handle.database.path,
          );
        } catch {
          return false;
        }
      }, "the holder's open database");
      const r = await cli(["restore", "--from", replica, "--to", handle.database.path, "--force"]);
      expect(r.code).toBe(1);
      // The holder (and Litestream, which the in-process service runs) are named.
      expect(r.err).toMatch(new RegExp(`is open in process [\\d, ]*\\b${holder.pid}\\b`));
      expect(r.err).toContain("stop it before restoring over its database");
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  }, 60_000);

  test("a time before the first copy, an empty replica and a malformed time are refused", async () => {
    const { replica } = await replicated();
    const to = join(tempDir("restored-"), "trading.db");
    const early = await cli(["restore", "--from", replica, "--to", to, "--timestamp", "2020-01-01T00:00:00Z"]);
    expect(early).toMatchObject({
      code: 1,
      err: `error: no copy of the database at ${replica} reaches back to 2020-01-01T00:00:00.000Z`,
    });
    const empty = `file://${tempDir("empty-")}/none`;
    expect(await cli(["restore", "--from", empty, "--to", to])).toMatchObject({
      code: 1,
      err: `error: no copy of the database at ${empty}`,
    });
    const bad = await cli(["restore", "--from", replica, "--to", to, "--timestamp", "yesterday"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--timestamp must be an ISO 8601 time");
    expect(existsSync(to)).toBe(false);
    expect((await cli(["restore", "--to", to])).code).toBe(2);
    expect((await cli(["restore", "--from", "http://x/y", "--to", to])).code).toBe(2);
  }, 60_000);
});
