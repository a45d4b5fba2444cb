import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_TOKENS } from "../../../src/market/demo/tokens.ts";
import { type ChildService, MAIN, startChildService } from "../../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../../helpers/context.ts";
import { startTrap, type Trap } from "./trap.ts";

// `DEMO_MARKET=true npm start` as a user runs it (issue 13 item 7): the real service as a child
// process, every outside URL pointed at a 127.0.0.1 trap that counts connections (zero proves that
// nothing tried to leave the host). A signal for a demo token must open a position; the API is
// polled for it with a 20 s bound (not a timed assertion).

const FROG = DEMO_TOKENS.find((t) => t.symbol === "FROG")!;

describe("DEMO_MARKET=true as a child process", () => {
  let trap: Trap;
  let dir: string;
  let svc: ChildService;

  beforeAll(async () => {
    trap = startTrap();
    dir = mkdtempSync(join(tmpdir(), "demo-service-"));
    svc = await startChildService({
      ...trap.env(),
      DEMO_MARKET: "true",
      DATABASE_PATH: join(dir, "trading.db"),
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      LOG_LEVEL: "info",
    });
  });
  afterAll(async () => {
    await svc?.stop();
    trap.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, opts: { token?: string; apiKey?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("a signal for a demo token opens a position; health, SOL price and whales answer; nothing leaves", async () => {
    const login = await call("POST", "/api/v1/auth/login", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    const key = await call("POST", "/api/v1/api-keys", { token, body: { name: "demo", scopes: ["signals"] } });
    expect(key.status).toBe(201);
    const agent = await call("POST", "/api/v1/agents", { token, body: { name: "demo", tradingMode: "simulation" } });
    expect(agent.status).toBe(201);
    const on = await call("PUT", `/api/v1/agents/${agent.body.id}`, {
      token,
      body: { automatedTradingSimulation: true },
    });
    expect(on.status).toBe(200);

    const signal = await call("POST", "/api/v1/trading-signals", {
      apiKey: key.body.key,
      body: { tokenAddress: FROG.address, symbol: "FROG", signalType: "buy", signalStrength: 4 },
    });
    expect(signal.status).toBe(201);

    let positions: any[] = [];
    const deadline = performance.now() + 20_000;
    while (positions.length === 0 && performance.now() < deadline) {
      positions = (await call("GET", `/api/v1/agent-positions/${agent.body.id}`, { token })).body;
      if (positions.length === 0) await Bun.sleep(50); // bounded polling for the background trade
    }
    expect(positions.length, svc.output()).toBe(1);
    expect(positions[0]).toMatchObject({ tokenAddress: FROG.address });

    const health = await call("GET", "/api/v1/health");
    expect(health.status).toBe(200);
    expect(health.body.status, JSON.stringify(health.body)).toBe("healthy");

    const pub = { apiKey: undefined, token: key.body.key };
    const sol = await call("GET", "/v1/prices/sol", pub);
    expect(sol.status).toBe(200);
    expect(sol.body).toMatchObject({ source: "demo", isStale: false });
    const whales = await call("GET", `/v1/whale-trades/${FROG.address}?minVolumeUsd=0`, pub);
    expect(whales.status).toBe(200);
    expect(whales.body.trades.length).toBeGreaterThan(0);
    const latest = await call("GET", "/v1/whale-trades/latest?minVolumeUsd=0", pub);
    expect(latest.status).toBe(200);

    expect(trap.connections, "a connection to an outside source was attempted").toBe(0);
  });
});

test("DEMO_MARKET with LIVE_TRADING_ENABLED stops the start: exit 2, the conflict named", async () => {
  const proc = Bun.spawn([process.execPath, MAIN], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DEMO_MARKET: "true", LIVE_TRADING_ENABLED: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await proc.exited).toBe(2);
  const err = await new Response(proc.stderr).text();
  expect(err).toContain("DEMO_MARKET");
  expect(err).toContain("LIVE_TRADING_ENABLED");
});
