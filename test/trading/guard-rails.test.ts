import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { ServiceEvent } from "../../src/events/bus.ts";
import { createUser, type TestContext } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 34 items 1 and 2 through HTTP: the pause switch per mode (rule paused), account-wide risk
// limits (rule risk_limit) and the daily-loss breaker. Exits, stop-losses and take-profits keep
// working while entries are refused; the switches survive a restart; each user sees their own.

let t: TradingContext;
const restarted: TestContext[] = [];
afterEach(async () => {
  for (const c of restarted.splice(0)) await c.close();
  await t.close();
});

const call = async (method: string, path: string, body?: unknown, ctx = t.ctx, token = t.token) => {
  const res = await ctx.request(method, `/api/v1${path}`, { token, body });
  return { status: res.status, body: (await res.json()) as any };
};

const evaluation = (signalId: number, agentId: string) =>
  t.ctx.database.sqlite
    .query<{ reason: string | null; outcome: string }, [number, string]>(
      "SELECT reason, outcome FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
    )
    .get(signalId, agentId);

const openCount = (agentId: string) => t.count("positions", "agent_id = ? AND status = 'open'", agentId);

describe("pause and resume", () => {
  test("a paused mode opens nothing, exits still close, the switch survives a restart, resume trades again", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    const first = await t.postSignal();
    await t.settle();
    expect(openCount(agent.id)).toBe(1);

    const paused = await call("POST", "/trading/pause", { mode: "simulation" });
    expect(paused.status).toBe(200);
    expect(paused.body.simulation).toMatchObject({ paused: true, tripped: null });
    expect(paused.body.simulation.pausedAt).toBe(new Date(t.ctx.clock.now()).toISOString());
    expect(paused.body.live).toEqual({ paused: false, pausedAt: null, tripped: null });
    expect(paused.body.liveTradingEnabled).toBe(false);

    const refused = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(evaluation(refused.id, agent.id)).toEqual({
      reason: "paused: Trading is paused for simulation mode; POST /api/v1/trading/resume resumes it",
      outcome: "skipped",
    });
    // An exit signal still closes the open position.
    const exit = await t.postSignal({ signalType: "sell" });
    await t.settle();
    expect(evaluation(exit.id, agent.id)?.outcome).toBe("closed");
    expect(openCount(agent.id)).toBe(0);
    expect(first.id).toBeLessThan(exit.id);

    // Persisted: a restart keeps the pause.
    const ctx = await t.ctx.restart();
    restarted.push(ctx);
    const after = await call("GET", "/trading/status", undefined, ctx);
    expect(after.body.simulation.paused).toBe(true);

    const resumed = await call("POST", "/trading/resume", { mode: "all" }, ctx);
    expect(resumed.status).toBe(200);
    expect(resumed.body.simulation).toEqual({ paused: false, pausedAt: null, tripped: null });
    const again = await ctx.request("POST", "/api/v1/trading-signals", {
      apiKey: t.apiKey,
      body: { tokenAddress: MINT2, symbol: "WIF", signalType: "buy", signalStrength: 4 },
    });
    expect(again.status).toBe(201);
    await ctx.services.signalQueue.idle();
    expect(
      ctx.database.sqlite
        .query<{ n: number }, [string]>("SELECT count(*) AS n FROM positions WHERE agent_id = ? AND status = 'open'")
        .get(agent.id)!.n,
    ).toBe(1);
  });

  test("stop-losses keep working while every mode is paused", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    await t.postSignal();
    await t.settle();
    expect((await call("POST", "/trading/pause", { mode: "all" })).body.live.paused).toBe(true);
    t.fake.setToken(MINT, { priceUsd: "0.005" });
    await t.ctx.services.trading.monitor.tick();
    const closed = t.ctx.database.sqlite
      .query<{ close_reason: string }, [string]>("SELECT close_reason FROM positions WHERE agent_id = ?")
      .get(agent.id);
    expect(closed?.close_reason).toBe("stop_loss");
  });

  test("each user pauses only their own agents; bad bodies are 400", async () => {
    t = await startTrading();
    const mine = await t.createAgent();
    const other = await createUser(t.ctx, "other@example.com");
    const theirs = await t.createAgent({ name: "theirs", token: other.token });
    expect((await call("POST", "/trading/pause", { mode: "all" }, t.ctx, other.token)).status).toBe(200);
    expect((await call("GET", "/trading/status")).body.simulation.paused).toBe(false);
    const otherKey = await t.ctx.request("POST", "/api/v1/api-keys", {
      token: other.token,
      body: { name: "bot", scopes: ["signals"] },
    });
    const key = ((await otherKey.json()) as any).key as string;
    const mySignal = await t.postSignal();
    const theirSignal = await t.postSignal({}, key);
    await t.settle();
    expect(evaluation(mySignal.id, mine.id)?.outcome).toBe("traded");
    expect(evaluation(theirSignal.id, theirs.id)?.reason).toStartWith("paused: ");

    for (const [body, error] of [
      [{}, "mode must be simulation, live or all"],
      [{ mode: "paper" }, "mode must be simulation, live or all"],
      [{ mode: "all", extra: 1 }, 'Unrecognized key: "extra"'],
    ] as const) {
      const r = await call("POST", "/trading/pause", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe(error);
    }
    expect((await call("POST", "/trading/resume", { mode: "both" })).status).toBe(400);
  });
});

describe("risk limits", () => {
  test("defaults: live's in both modes (issue 44 item 3); PUT sets the given fields; bad values name the limit", async () => {
    t = await startTrading();
    const got = await call("GET", "/risk-limits");
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      simulation: {
        maxOpenPositions: 10,
        maxExposureSol: 5,
        dailyLossLimitSol: 1,
        tripped: null,
        usage: { openPositions: 0, exposureSol: 0, dailyLossSol: 0 },
      },
      live: {
        maxOpenPositions: 10,
        maxExposureSol: 5,
        dailyLossLimitSol: 1,
        tripped: null,
        usage: { openPositions: 0, exposureSol: 0, dailyLossSol: 0 },
      },
    });
    const put = await call("PUT", "/risk-limits", {
      simulation: { maxOpenPositions: 3 },
      live: { dailyLossLimitSol: null },
    });
    expect(put.status).toBe(200);
    expect(put.body.simulation).toMatchObject({ maxOpenPositions: 3, maxExposureSol: 5, dailyLossLimitSol: 1 });
    expect(put.body.live).toMatchObject({ maxOpenPositions: 10, maxExposureSol: 5, dailyLossLimitSol: null });

    for (const [body, error] of [
      [{}, "At least one mode is required: simulation or live"],
      [{ simulation: { maxOpenPositions: 0 } }, "maxOpenPositions must be null or a whole number from 1 to 100000"],
      [{ live: { maxExposureSol: -1 } }, "maxExposureSol must be null or a number above 0 and at most 1000000"],
      [{ live: { dailyLossLimitSol: "1" } }, "dailyLossLimitSol must be null or a number above 0 and at most 1000000"],
      [{ paper: {} }, 'Unrecognized key: "paper"'],
    ] as const) {
      const r = await call("PUT", "/risk-limits", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe(error);
    }
    // Another user sees their own defaults.
    const other = await createUser(t.ctx, "other@example.com");
    expect((await call("GET", "/risk-limits", undefined, t.ctx, other.token)).body.simulation.maxOpenPositions).toBe(
      10,
    );
  });

  test("simulation stops where live would: 30 signals over 30 tokens at once open 10 positions; lifted, all 30 (issue 44 item 3)", async () => {
    t = await startTrading();
    const mints = Array.from({ length: 30 }, () => Keypair.generate().publicKey.toBase58());
    for (const [i, mint] of mints.entries())
      t.fake.setToken(mint, {
        symbol: `T${i}`,
        priceUsd: "0.01",
        decimals: 6,
        liquidityUsd: 250_000,
        marketCapUsd: 3_000_000,
      });
    const agent = await t.createAgent({ config: { positionSizing: { type: "fixed", fixedAmountSol: 0.1 } } });
    await Promise.all(mints.map((m, i) => t!.postSignal({ tokenAddress: m, symbol: `T${i}` })));
    await t.settle();
    expect(await t.positions(agent.id)).toHaveLength(10);
    expect((await call("GET", "/risk-limits")).body.simulation.usage.openPositions).toBe(10);
    // The person lifts it: every further entry is taken.
    expect((await call("PUT", "/risk-limits", { simulation: { maxOpenPositions: null } })).status).toBe(200);
    const more = Array.from({ length: 20 }, () => Keypair.generate().publicKey.toBase58());
    for (const [i, mint] of more.entries())
      t.fake.setToken(mint, {
        symbol: `M${i}`,
        priceUsd: "0.01",
        decimals: 6,
        liquidityUsd: 250_000,
        marketCapUsd: 3_000_000,
      });
    await Promise.all(more.map((m, i) => t!.postSignal({ tokenAddress: m, symbol: `M${i}` })));
    await t.settle();
    expect(await t.positions(agent.id)).toHaveLength(30);
  });

  test("maxOpenPositions holds for agents entering at once", async () => {
    t = await startTrading();
    await call("PUT", "/risk-limits", { simulation: { maxOpenPositions: 1 } });
    const agents = [await t.createAgent(), await t.createAgent(), await t.createAgent()];
    const s = await t.postSignal();
    await t.settle();
    expect(t.count("positions", "status = 'open'")).toBe(1);
    const reasons = agents.map((a) => evaluation(s.id, a.id)?.reason).filter((r) => r !== null);
    expect(reasons).toEqual([
      "risk_limit: maxOpenPositions: 1 positions are open; the limit is 1",
      "risk_limit: maxOpenPositions: 1 positions are open; the limit is 1",
    ]);
  });

  test("maxExposureSol and the agent's own risk.maxOpenPositions", async () => {
    t = await startTrading();
    // 5 % of 10 SOL = 0.5 SOL a trade.
    const agent = await t.createAgent();
    const capped = await t.createAgent({ name: "capped", config: { risk: { maxOpenPositions: 1 } } });
    await t.postSignal();
    await t.settle();
    expect(openCount(agent.id)).toBe(1);
    expect(openCount(capped.id)).toBe(1);
    const second = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(evaluation(second.id, capped.id)?.reason).toBe(
      "risk_limit: risk.maxOpenPositions: the agent holds 1 open positions; its limit is 1",
    );
    expect(evaluation(second.id, agent.id)?.outcome).toBe("traded");

    const usage = (await call("GET", "/risk-limits")).body.simulation.usage;
    expect(usage.openPositions).toBe(3);
    await call("PUT", "/risk-limits", { simulation: { maxExposureSol: usage.exposureSol + 0.4 } });
    const third = await t.createAgent({ name: "third" });
    const s3 = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(evaluation(s3.id, third.id)?.reason).toMatch(
      /^risk_limit: maxExposureSol: \d\.\d+ SOL open plus this trade's 0\.5 SOL is over the limit of \d\.\d+ SOL$/,
    );
  });

  test("a daily loss over the limit trips the breaker: event, no entries, exits go on, resume clears it", async () => {
    t = await startTrading();
    const events: ServiceEvent[] = [];
    t.ctx.services.events.subscribe((e) => events.push(e));
    await call("PUT", "/risk-limits", { simulation: { dailyLossLimitSol: 0.1 } });
    const agent = await t.createAgent();
    const other = await t.createAgent({ name: "holder" });
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    expect(openCount(other.id)).toBe(1);
    // The holder of MINT2 only: the agent trades MINT below.
    await t.postSignal();
    await t.settle();
    // Half the price: the 25 % stop-loss sells at a loss of about 0.25 SOL.
    t.fake.setToken(MINT, { priceUsd: "0.005" });
    await t.ctx.services.trading.monitor.tick();
    const tripped = events.filter((e) => e.type === "risk.tripped");
    expect(tripped.length).toBe(1);
    expect(tripped[0]!.userId).toBe(t.userId);
    expect(tripped[0]!.data).toMatchObject({ mode: "simulation", dailyLossLimitSol: "0.1" });
    expect(Number(tripped[0]!.data.dailyLossSol)).toBeGreaterThan(0.1);

    const limits = (await call("GET", "/risk-limits")).body.simulation;
    expect(limits.tripped.at).toBe(new Date(t.ctx.clock.now()).toISOString());
    expect(limits.tripped.reason).toMatch(
      /^loss of 0\.\d+ SOL in the last 24 h is over the daily loss limit of 0\.1 SOL$/,
    );
    expect((await call("GET", "/trading/status")).body.simulation.tripped).toEqual(limits.tripped);

    t.fake.setToken(MINT, { priceUsd: "0.01" });
    const refused = await t.postSignal();
    await t.settle();
    expect(evaluation(refused.id, agent.id)?.reason).toStartWith(
      `risk_limit: dailyLossLimitSol: the daily loss breaker tripped at ${limits.tripped.at} (`,
    );
    // Exits continue.
    const exit = await t.postSignal({ tokenAddress: MINT2, signalType: "sell" });
    await t.settle();
    expect(evaluation(exit.id, other.id)?.outcome).toBe("closed");

    t.ctx.clock.advance(60_000);
    const resumed = await call("POST", "/trading/resume", { mode: "simulation" });
    expect(resumed.body.simulation.tripped).toBeNull();
    expect(events.filter((e) => e.type === "trading.resumed").at(-1)?.data).toMatchObject({
      modes: ["simulation"],
      clearedBreakers: ["simulation"],
    });
    // The loss before the resume no longer counts.
    const after = await t.postSignal();
    await t.settle();
    expect(evaluation(after.id, agent.id)).toEqual({ reason: null, outcome: "traded" });
  });

  test("an open position's unrealized loss trips the breaker after a monitor tick", async () => {
    t = await startTrading();
    const events: ServiceEvent[] = [];
    t.ctx.services.events.subscribe((e) => events.push(e));
    await call("PUT", "/risk-limits", { simulation: { dailyLossLimitSol: 0.2 } });
    const agent = await t.createAgent({ config: { stopLoss: { enabled: false } } });
    await t.postSignal();
    await t.settle();
    // 0.5 SOL in; at 40 % of the entry price the position has lost about 0.3 SOL, still open.
    t.fake.setToken(MINT, { priceUsd: "0.004" });
    await t.ctx.services.trading.monitor.tick();
    expect(openCount(agent.id)).toBe(1);
    expect(events.filter((e) => e.type === "risk.tripped").map((e) => e.data.mode)).toEqual(["simulation"]);
    const usage = (await call("GET", "/risk-limits")).body.simulation.usage;
    expect(usage.dailyLossSol).toBeGreaterThan(0.29);
    // Sweeps look at most every 30 s, and a tripped breaker trips no second time.
    await t.ctx.services.trading.monitor.tick();
    t.ctx.clock.advance(31_000);
    await t.ctx.services.trading.monitor.tick();
    expect(events.filter((e) => e.type === "risk.tripped")).toHaveLength(1);
  });
});
