import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { WalIndexHeader } from "../../src/db/wal-index-header.ts";
import { childEnv, freePort, loginOver, ROOT, run, startService } from "../cli/process-helpers.ts";

// Issue 8 acceptance: build the binary, copy it alone into an empty directory, start it there on a
// fresh data directory, log in, create an agent, stop it with SIGTERM (exit 0), start it again and
// find the agent: the migrations are inside the binary and the data is kept.

let buildDir: string;
let runDir: string;
let binary: string;
let buildOutput: string;
const PLATFORM = `${process.platform}-${process.arch}`;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "trading-agent-build-"));
  runDir = mkdtempSync(join(tmpdir(), "trading-agent-bin-"));
  const r = await run([process.execPath, join(ROOT, "build.ts"), "--outdir", buildDir], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
  });
  buildOutput = r.stdout + r.stderr;
  if (r.code !== 0) throw new Error(`build.ts failed (${r.code}):\n${buildOutput}`);
  binary = join(runDir, "trading-agent");
  copyFileSync(join(buildDir, "trading-agent"), binary);
  Bun.spawnSync(["chmod", "755", binary]);
}, 180_000);

afterAll(() => {
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
});

test("build.ts prints the size and smoke-runs version and migrate", () => {
  expect(buildOutput).toMatch(
    new RegExp(
      `^built .*trading-agent \\(${PLATFORM}, \\d+\\.\\d MiB, commit ([0-9a-f]{12}(-dirty)?|unknown)\\)$`,
      "m",
    ),
  );
  expect(buildOutput).toContain(`  smoke: trading-agent ${pkg.version} (`);
  expect(buildOutput).toContain("  smoke: migrate → applied 0000_init");
  expect(readdirSync(buildDir)).toEqual(["trading-agent"]);
});

test("the binary runs from an empty directory: version", async () => {
  const r = await run([binary, "version"], { cwd: runDir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(
    new RegExp(
      `^trading-agent ${pkg.version.replace(/\./g, "\\.")} \\(([0-9a-f]{12}(-dirty)?|unknown); bun ${Bun.version.replace(/\./g, "\\.")}; ${PLATFORM}\\)\\n$`,
    ),
  );
});

test("the binary ignores a .env in its working directory (configuration is explicit)", async () => {
  const dir = join(runDir, "dotenv-check");
  mkdirSync(dir);
  writeFileSync(join(dir, ".env"), `DATABASE_PATH=${join(dir, "from-dotenv.db")}\n`);
  const explicit = join(dir, "explicit.db");
  const r = await run([binary, "migrate"], { cwd: dir, env: childEnv({ DATABASE_PATH: explicit }) });
  expect(r).toEqual({
    code: 0,
    stdout: `applied 0000_init, 0001_trading_controls, 0002_signal_token_index, 0003_copy_trading, 0004_portfolio_snapshots, 0005_unfinished_signals_index, 0006_signal_hooks, 0007_box_on_the_internet, 0008_position_exit_config to ${explicit}\n`,
    stderr: "",
  });
  expect(existsSync(join(dir, "from-dotenv.db"))).toBe(false);
  // ... and reads the same file when told to with --env-file.
  const viaFlag = await run([binary, "migrate", "--env-file", join(dir, ".env")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  expect(viaFlag).toEqual({
    code: 0,
    stdout: `applied 0000_init, 0001_trading_controls, 0002_signal_token_index, 0003_copy_trading, 0004_portfolio_snapshots, 0005_unfinished_signals_index, 0006_signal_hooks, 0007_box_on_the_internet, 0008_position_exit_config to ${join(dir, "from-dotenv.db")}\n`,
    stderr: "",
  });
  rmSync(dir, { recursive: true, force: true });
});

test("the binary exits 2 on bad configuration", async () => {
  const r = await run([binary, "serve"], {
    cwd: runDir,
    env: childEnv({ PORT: "70000", DATABASE_PATH: join(runDir, "never", "t.db") }),
  });
  expect(r).toEqual({ code: 2, stdout: "", stderr: "config error: PORT: must be at most 65535\n" });
  expect(existsSync(join(runDir, "never"))).toBe(false);
});

test("start, log in, create an agent, SIGTERM (exit 0), start again and find the agent", async () => {
  const dataDir = join(runDir, "data");
  const env = childEnv({ DATABASE_PATH: join(dataDir, "trading.db"), HOST: "127.0.0.1", PORT: String(freePort()) });

  const first = await startService([binary], { cwd: runDir, env });
  expect((await fetch(`${first.url}/api/v1/health/live`)).status).toBe(200);
  const token = await loginOver(first.url);
  const created = await fetch(`${first.url}/api/v1/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "binary-e2e" }),
  });
  expect(created.status).toBe(201);
  const agent = (await created.json()) as { id: string; name: string };
  expect(agent.name).toBe("binary-e2e");
  expect(await first.stop("SIGTERM")).toBe(0);
  expect(first.logs.at(-1)).toMatchObject({ msg: "stopped", reason: "SIGTERM" });
  // The process is gone soon after it said "stopped" (systemd waits on the exit, not the line).
  console.log(`binary exit after "stopped": ${first.exitAfterStoppedMs()?.toFixed(0)} ms`);
  expect(first.exitAfterStoppedMs()!).toBeLessThan(200);
  expect(await first.stderr()).toBe("");
  // Only the binary and the data directory: nothing else was needed beside it, nothing written.
  expect(readdirSync(runDir).toSorted()).toEqual(["data", "trading-agent"]);
  expect(readdirSync(dataDir)).toContain("trading.db");

  const env2 = { ...env, PORT: String(freePort()) };
  const second = await startService([binary, "serve"], { cwd: runDir, env: env2 });
  try {
    expect(second.logs.find((l) => l.msg === "admin account")).toMatchObject({ result: "unchanged" });
    const token2 = await loginOver(second.url);
    const found = await fetch(`${second.url}/api/v1/agents/${agent.id}`, {
      headers: { authorization: `Bearer ${token2}` },
    });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { id: string; name: string }).name).toBe("binary-e2e");
    // The dashboard is inside the binary (issue 14): the page and its script, from an empty directory.
    const page = await fetch(`${second.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = /src="(\/dashboard\/app-[0-9a-f]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${second.url}${script}`);
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(10_000);
    // The access token of the first run still works: the generated JWT secret was kept too.
    expect(
      (await fetch(`${second.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    // The WAL checkpoint worker is an entry point of the binary (src/db/wal-checkpointer.ts): once
    // the WAL holds 1,000 uncopied frames (written here by another connection, which does not
    // checkpoint), the service's worker thread copies them back.
    const other = new Database(join(dataDir, "trading.db"));
    try {
      other.exec("PRAGMA busy_timeout = 5000");
      other.exec("PRAGMA wal_autocheckpoint = 0");
      other.exec("CREATE TABLE wal_ballast (body BLOB)");
      const insert = other.query<unknown, [Uint8Array]>("INSERT INTO wal_ballast (body) VALUES (?)");
      other.transaction(() => {
        for (let i = 0; i < 1_200; i++) insert.run(crypto.getRandomValues(new Uint8Array(3_900)));
      })();
      const header = WalIndexHeader.of(other)!;
      expect(header.frames()!.last - header.frames()!.backfilled).toBeGreaterThan(1_000);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && header.frames()?.backfilled !== header.frames()?.last) await Bun.sleep(50);
      expect(header.frames()!.backfilled).toBe(header.frames()!.last);
      expect(second.logs.map((l) => l.msg)).toContain("WAL checkpoints run in a worker thread");
      expect(second.logs.filter((l) => l.level === "warn")).toEqual([]);
    } finally {
      WalIndexHeader.release(other);
      other.close();
    }
  } finally {
    expect(await second.stop("SIGTERM")).toBe(0);
  }
  // The operator's unlock (PRODUCT.md §7) from the binary: an account that is not locked says so.
  const unlock = await run([binary, "unlock", "--email", "admin@example.com"], { cwd: runDir, env });
  expect(unlock).toEqual({ code: 0, stdout: "admin@example.com was not locked; failure count reset\n", stderr: "" });
});
