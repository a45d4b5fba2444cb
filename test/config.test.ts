import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createTestContext, offlineEnv } from "./helpers/context.ts";

const root = join(import.meta.dir, "..");

describe("configuration", () => {
  test("defaults", () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe("127.0.0.1");
    expect(c.DATABASE_PATH).toBe("./data/trading.db");
    expect(c.SIMULATION_INITIAL_SOL).toBe(10);
    expect(c.LIVE_TRADING_ENABLED).toBe(false);
    expect(c.SWAP_AGGREGATOR_URL).toBe("https://api.jup.ag");
  });

  test("a lamport LIVE_PRIORITY_FEE (removed) stops the start, pointing at LIVE_PRIORITY_FEE_MAX; auto or empty is harmless", () => {
    expect(() => loadConfig({ LIVE_PRIORITY_FEE: "20000" })).toThrow(ConfigError);
    try {
      loadConfig({ LIVE_PRIORITY_FEE: "20000" });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        "LIVE_PRIORITY_FEE: no longer read; the priority-fee cap is LIVE_PRIORITY_FEE_MAX (lamports per transaction): move the value there and remove LIVE_PRIORITY_FEE",
      ]);
    }
    expect(loadConfig({ LIVE_PRIORITY_FEE: "auto" }).LIVE_PRIORITY_FEE_MAX).toBe(1_000_000);
    expect(loadConfig({ LIVE_PRIORITY_FEE: "" }).LIVE_PRIORITY_FEE_MAX).toBe(1_000_000);
  });

  test("booleans read the same in any case and around spaces: TRUE, True, ' yes ', NO (issue 44 item 6)", () => {
    for (const v of ["TRUE", "True", "true", " yes ", "YES", "1"]) {
      expect(loadConfig({ DEMO_MARKET: v }).DEMO_MARKET).toBe(true);
      expect(loadConfig({ LIVE_TRADING_ENABLED: v }).LIVE_TRADING_ENABLED).toBe(true);
      expect(loadConfig({ LIVE_SIMULATE_BEFORE_SEND: v }).LIVE_SIMULATE_BEFORE_SEND).toBe(true);
    }
    for (const v of ["FALSE", "False", "No", " 0"]) {
      expect(loadConfig({ LIQUIDITY_CHECKS: v }).LIQUIDITY_CHECKS).toBe(false);
      expect(loadConfig({ LIVE_SIMULATE_BEFORE_SEND: v }).LIVE_SIMULATE_BEFORE_SEND).toBe(false);
    }
    expect(loadConfig({}).LIQUIDITY_CHECKS).toBe(true);
    expect(() => loadConfig({ DEMO_MARKET: "TRUEISH" })).toThrow("DEMO_MARKET: must be true or false");
  });

  test("LIVE_SIMULATE_BEFORE_SEND: unset or empty leaves the choice to the swap path (off for build, on otherwise); a value is kept", () => {
    expect(loadConfig({}).LIVE_SIMULATE_BEFORE_SEND).toBeUndefined();
    expect(loadConfig({ LIVE_SIMULATE_BEFORE_SEND: "" }).LIVE_SIMULATE_BEFORE_SEND).toBeUndefined();
    expect(loadConfig({ LIVE_SIMULATE_BEFORE_SEND: "true" }).LIVE_SIMULATE_BEFORE_SEND).toBe(true);
    expect(loadConfig({ LIVE_SIMULATE_BEFORE_SEND: "no" }).LIVE_SIMULATE_BEFORE_SEND).toBe(false);
    expect(() => loadConfig({ LIVE_SIMULATE_BEFORE_SEND: "maybe" })).toThrow(ConfigError);
  });

  test("TOKEN_TRANSFER_HOOK_ALLOWLIST: comma-separated program ids, empty by default; anything else stops the start", () => {
    expect(loadConfig({}).TOKEN_TRANSFER_HOOK_ALLOWLIST).toEqual([]);
    const hook = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
    expect(loadConfig({ TOKEN_TRANSFER_HOOK_ALLOWLIST: ` ${hook} ,` }).TOKEN_TRANSFER_HOOK_ALLOWLIST).toEqual([hook]);
    expect(() => loadConfig({ TOKEN_TRANSFER_HOOK_ALLOWLIST: "not-a-key" })).toThrow(ConfigError);
  });

  test("one line per problem, naming the variable, never the value", () => {
    const secret = "short-secret-value";
    try {
      loadConfig({ PORT: "abc", JWT_SECRET: secret, DB_SYNC: "sometimes", LIVE_TRADING_ENABLED: "maybe" });
      throw new Error("should have failed");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems.length).toBe(4);
      expect(problems.some((p) => p.startsWith("PORT:"))).toBe(true);
      expect(problems).toContain("JWT_SECRET: must be at least 32 bytes long");
      expect(problems.some((p) => p.startsWith("DB_SYNC:"))).toBe(true);
      expect(problems.join("\n").includes(secret)).toBe(false);
    }
  });

  test("the process exits 2 with one line per problem on bad configuration", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const proc = Bun.spawn([process.execPath, join(root, "src/main.ts")], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: "not-a-port",
        JWT_SECRET: "tooshort-secret",
        DATABASE_PATH: join(dir, "t.db"),
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await proc.exited;
    const err = await new Response(proc.stderr).text();
    expect(code).toBe(2);
    expect(err).toContain("PORT");
    expect(err).toContain("JWT_SECRET");
    expect(err.includes("tooshort-secret")).toBe(false);
  });

  test("the service refuses to start without admin credentials when no user exists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const proc = Bun.spawn([process.execPath, join(root, "src/main.ts")], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", PORT: "0", DATABASE_PATH: join(dir, "t.db"), ...emptySources() },
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await proc.exited;
    const err = await new Response(proc.stderr).text();
    expect(code).toBe(2);
    expect(err).toContain("ADMIN_EMAIL and ADMIN_PASSWORD must be set");
  });
});

function emptySources() {
  const { ADMIN_EMAIL: _a, ADMIN_PASSWORD: _b, NODE_ENV: _c, LOG_LEVEL: _d, ...sources } = offlineEnv;
  return sources;
}

describe("admin bootstrap", () => {
  test("created on first start, updated when email or password change, kept otherwise", async () => {
    const dir = mkdtempSync(join(tmpdir(), "admin-"));
    let ctx = await createTestContext({ dir });
    const count = () => ctx.database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM users").get()!.n;
    expect(count()).toBe(1);
    expect(await ctx.services.accounts.ensureAdmin("admin@example.com", "Admin!Passw0rd")).toBe("unchanged");
    expect(await ctx.services.accounts.ensureAdmin("root@example.com", "Admin!Passw0rd")).toBe("updated");
    expect(await ctx.services.accounts.ensureAdmin("root@example.com", "Another!Pass1")).toBe("updated");
    expect(count()).toBe(1);
    await ctx.close();
    ctx = await createTestContext({ dir, env: { ADMIN_EMAIL: "root@example.com", ADMIN_PASSWORD: "Another!Pass1" } });
    const res = await ctx.request("POST", "/api/v1/auth/login", {
      body: { email: "root@example.com", password: "Another!Pass1" },
    });
    expect(res.status).toBe(200);
    expect(await ctx.services.accounts.ensureAdmin(undefined, undefined)).toBe("skipped");
    await ctx.close();
  });
});

describe("storage", () => {
  test("PRAGMAs: WAL, foreign keys, busy timeout, temp store in memory; migrations apply once", () => {
    const dir = mkdtempSync(join(tmpdir(), "db-"));
    const h = openDatabase(join(dir, "nested", "x.db"));
    const q = (p: string) => Object.values(h.sqlite.query(`PRAGMA ${p}`).get() as object)[0];
    expect(q("journal_mode")).toBe("wal");
    expect(q("foreign_keys")).toBe(1);
    expect(q("busy_timeout")).toBe(5000);
    expect(q("synchronous")).toBe(1); // NORMAL
    expect(q("temp_store")).toBe(2); // MEMORY: the group commit's savepoint journals
    h.close();
    const again = openDatabase(join(dir, "nested", "x.db"), { sync: "full" });
    expect(Object.values(again.sqlite.query("PRAGMA synchronous").get() as object)[0]).toBe(2);
    const tags = again.sqlite.query<{ tag: string }, []>("SELECT tag FROM __migrations").all();
    expect(tags.length).toBeGreaterThan(0);
    expect(new Set(tags.map((t) => t.tag)).size).toBe(tags.length);
    again.close();
  });

  test("the JWT secret file is created with mode 0600 when JWT_SECRET is absent", async () => {
    const ctx = await createTestContext();
    const st = await Bun.file(join(ctx.dir, "jwt-secret")).stat();
    expect(st.mode & 0o777).toBe(0o600);
    await ctx.close();
  });
});
