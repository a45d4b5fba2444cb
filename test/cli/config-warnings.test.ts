import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unknownVariableWarnings } from "../../src/cli/unknown-variables.ts";
import { startTrading } from "../helpers/trading.ts";
import { until } from "../helpers/until.ts";
import {
  childEnv,
  freePort,
  loginOver,
  type RunningService,
  run,
  SOURCE_CLI,
  startService,
} from "./process-helpers.ts";

// Issue 34 item 4: a variable that looks like one of ours but is not read is named at start with
// the likely one; STRICT_CONFIG=true makes it a configuration error (exit 2). The real CLI in a
// child process, as the operator runs it.

describe("unknownVariableWarnings", () => {
  const cases: [Record<string, string>, string[]][] = [
    [{ DEMO_MARKT: "true" }, ["DEMO_MARKT is not a variable this service reads; did you mean DEMO_MARKET?"]],
    [
      { MONITOR_INTERVAL_SECOND: "5" },
      ["MONITOR_INTERVAL_SECOND is not a variable this service reads; did you mean MONITOR_INTERVAL_SECONDS?"],
    ],
    [{ demo_market: "true" }, ["demo_market is not a variable this service reads; did you mean DEMO_MARKET?"]],
    [
      { STOP_LOSS_PERCENT: "20" },
      [
        "STOP_LOSS_PERCENT is not a variable this service reads; stop-loss, take-profit, sizing and filters are set per agent (PUT /api/v1/agents/:id/config)",
      ],
    ],
    [
      { LIVE_TRADING: "true" },
      ["LIVE_TRADING is not a variable this service reads; see .env.example for the known ones"],
    ],
    [
      { SOLANA_RPC: "http://x" },
      ["SOLANA_RPC is not a variable this service reads; see .env.example for the known ones"],
    ],
    // Known names, live wallets and other programs' variables pass.
    [{ DEMO_MARKET: "true", WALLET_3: "x", PORT: "1", STRICT_CONFIG: "false" }, []],
    [{ HOME: "/root", PATH: "/bin", PWD: "/", HOSTNAME: "h", TERM: "xterm", LANG: "C", USER: "u", SHELL: "sh" }, []],
    [{ HTTP_PROXY: "x", NODE_OPTIONS: "x", npm_config_cache: "x", LOGNAME: "u", TMPDIR: "/tmp" }, []],
  ];
  test.each(cases)("%p", (env, expected) => {
    expect(unknownVariableWarnings(env)).toEqual(expected);
  });
});

const dirs: string[] = [];
const running: RunningService[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setUp(extra: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "cfg-warn-"));
  dirs.push(dir);
  return { dir, env: childEnv({ DATABASE_PATH: join(dir, "trading.db"), PORT: String(freePort()), ...extra }) };
}

describe("at start", () => {
  test("a typo in the environment and in --env-file is a warning naming the likely variable", async () => {
    const { dir, env } = setUp({ DEMO_MARKT: "true" });
    writeFileSync(join(dir, "my.env"), "MONITOR_INTERVAL_SECOND=5\n");
    const svc = await startService([...SOURCE_CLI, "serve", "--env-file", join(dir, "my.env")], { cwd: dir, env });
    running.push(svc);
    const warnings = svc.logs.filter((l) => l.level === "warn").map((l) => l.msg);
    expect(warnings).toContain(
      "CONFIGURATION WARNING: DEMO_MARKT is not a variable this service reads; did you mean DEMO_MARKET?",
    );
    expect(warnings).toContain(
      "CONFIGURATION WARNING: MONITOR_INTERVAL_SECOND is not a variable this service reads; did you mean MONITOR_INTERVAL_SECONDS?",
    );
  });

  test("STRICT_CONFIG=true: the same typo stops the start with exit 2", async () => {
    const { dir, env } = setUp({ DEMO_MARKT: "true", STRICT_CONFIG: "true" });
    const r = await run([...SOURCE_CLI, "serve"], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "config error: DEMO_MARKT is not a variable this service reads; did you mean DEMO_MARKET? (STRICT_CONFIG=true)",
    );
  });
});

describe("live trading enabled", () => {
  const health = async (url: string) => (await (await fetch(`${url}/api/v1/health`)).json()) as any;

  test("one start-up line says so; without SOLANA_RPC_URL a loud warning and degraded health", async () => {
    const { dir, env } = setUp({ LIVE_TRADING_ENABLED: "true", SOLANA_RPC_URL: "" });
    const svc = await startService([...SOURCE_CLI, "serve"], { cwd: dir, env });
    running.push(svc);
    const on = svc.logs.filter((l) => String(l.msg).startsWith("LIVE TRADING ENABLED"));
    expect(on).toHaveLength(1);
    expect(on[0]).toMatchObject({ level: "info", wallets: 0, rpcHost: null, swapApi: "build", jito: false });
    expect(svc.logs.map((l) => l.msg)).toContain(
      "LIVE TRADING WARNING: SOLANA_RPC_URL is empty; no live trade can be sent and /health is degraded",
    );
    const h = await health(svc.url);
    expect(h.status).toBe("degraded");
    expect(h.services.solanaRpc).toMatchObject({
      status: "degraded",
      message: "LIVE_TRADING_ENABLED is true but SOLANA_RPC_URL is empty: no live trade can be sent",
    });
  });

  test("a node that does not answer: the line names its host (never its path), a warning, degraded health", async () => {
    const dead = freePort();
    const { dir, env } = setUp({
      LIVE_TRADING_ENABLED: "true",
      SOLANA_RPC_URL: `http://127.0.0.1:${dead}/secret-key-path`,
    });
    const svc = await startService([...SOURCE_CLI, "serve"], { cwd: dir, env });
    running.push(svc);
    expect(svc.logs.find((l) => String(l.msg).startsWith("LIVE TRADING ENABLED"))).toMatchObject({
      rpcHost: `127.0.0.1:${dead}`,
    });
    const warning = await until(
      () => svc.logs.find((l) => String(l.msg).startsWith("LIVE TRADING WARNING: the Solana node does not answer")),
      "the unreachable-node warning",
    );
    expect(warning.level).toBe("warn");
    expect(JSON.stringify(svc.logs)).not.toContain("secret-key-path");
    const h = await until(async () => {
      const body = await health(svc.url);
      return body.services.solanaRpc?.status === "degraded" ? body : null;
    }, "degraded solanaRpc health");
    expect(h.status).toBe("degraded");
    const token = await loginOver(svc.url);
    const status = await fetch(`${svc.url}/api/v1/data-sources/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await status.json()) as any).solanaRpc).toEqual({ configured: true, reachable: false });
  });

  test("a node that answers is reachable in GET /data-sources/status (in process, the fake node)", async () => {
    const t = await startTrading({ rpc: true });
    try {
      const get = async () =>
        (await (await t.ctx.request("GET", "/api/v1/data-sources/status", { token: t.token })).json()) as any;
      expect((await get()).solanaRpc).toEqual({ configured: true, reachable: null });
      await t.ctx.services.market.prober.tick();
      expect((await get()).solanaRpc).toEqual({ configured: true, reachable: true });
      expect(t.rpc!.calls.filter((c) => c.method === "getBlockHeight")).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  test("SOLANA_CONFIRM_RPC_URL: the confirm node is its own entry, probed like the first node; unset: not configured", async () => {
    const off = await startTrading({ rpc: true });
    try {
      const body = (await (
        await off.ctx.request("GET", "/api/v1/data-sources/status", { token: off.token })
      ).json()) as any;
      expect(body.solanaConfirmRpc).toEqual({ configured: false, reachable: null });
    } finally {
      await off.close();
    }
    const dead = freePort();
    const t = await startTrading({
      rpc: true,
      env: { SOLANA_CONFIRM_RPC_URL: `http://127.0.0.1:${dead}/secret-path` },
    });
    try {
      const get = async () => {
        const res = await t.ctx.request("GET", "/api/v1/data-sources/status", { token: t.token });
        return (await res.json()) as any;
      };
      expect((await get()).solanaConfirmRpc).toEqual({ configured: true, reachable: null });
      await t.ctx.services.market.prober.tick();
      const after = await get();
      // The first node answers, the confirm node (nothing listens there) does not: told apart.
      expect(after.solanaRpc).toEqual({ configured: true, reachable: true });
      expect(after.solanaConfirmRpc).toEqual({ configured: true, reachable: false });
      expect(JSON.stringify(after)).not.toContain("secret-path");
    } finally {
      await t.close();
    }
  });
});
