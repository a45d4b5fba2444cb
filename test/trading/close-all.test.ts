import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// POST /api/v1/trading/close-all (issue 41 item 6; docs/decisions/close-all-and-sources.md): every
// open position of the mode (or of one agent) closes through the manual close, each with its own
// answer; `pause: true` stops entries first.

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const closeAll = (body: unknown, token = t.token) =>
  t.ctx.request("POST", "/api/v1/trading/close-all", { token, body });

async function twoAgentsFourPositions() {
  const a = await t.createAgent({ name: "a" });
  const b = await t.createAgent({ name: "b" });
  await t.postSignal({ tokenAddress: MINT });
  await t.postSignal({ tokenAddress: MINT2 });
  await t.settle();
  expect((await t.positions(a.id)).length + (await t.positions(b.id)).length).toBe(4);
  return { a, b };
}

describe("close-all", () => {
  test("closes every open position of the mode, each through the manual close, one answer each", async () => {
    const { a, b } = await twoAgentsFourPositions();
    // The live mode holds none of them: nothing closes.
    const live = await closeAll({ mode: "live" });
    expect(live.status).toBe(200);
    expect(await json(live)).toEqual({ mode: "live", agentId: null, paused: false, results: [] });

    const res = await closeAll({ mode: "simulation" });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ mode: "simulation", agentId: null, paused: false });
    expect(body.results).toHaveLength(4);
    for (const r of body.results) {
      expect(r).toMatchObject({ status: "closed", error: null, tradingMode: "simulation" });
      expect([a.id, b.id]).toContain(r.agentId);
      expect(typeof r.transactionId).toBe("string");
      expect(typeof r.profitLossSol).toBe("number");
    }
    expect(await t.positions(a.id)).toHaveLength(0);
    expect(await t.positions(b.id)).toHaveLength(0);
    // The manual close's records: a SELL and a historical swap with closeReason manual per position.
    expect(t.count("historical_swaps", "close_reason = 'manual'")).toBe(4);
    expect(t.count("agent_transactions", "transaction_type = 'SELL'")).toBe(4);
    // Nothing left: an empty answer, not an error.
    expect((await json(await closeAll({ mode: "all" }))).results).toEqual([]);
  });

  test("agentId closes that agent's positions only; another user's agent is 404; bad bodies are 400", async () => {
    const { a, b } = await twoAgentsFourPositions();
    const other = await createUser(t.ctx);
    const theirs = await t.createAgent({ token: other.token, name: "theirs" });
    const foreign = await closeAll({ mode: "all", agentId: theirs.id });
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).error).toBe("Agent not found");
    // Another user closing "all" closes nothing of ours.
    expect((await json(await closeAll({ mode: "all" }, other.token))).results).toEqual([]);
    expect(await t.positions(a.id)).toHaveLength(2);

    const res = await json(await closeAll({ mode: "all", agentId: a.id }));
    expect(res.results.map((r: any) => r.agentId)).toEqual([a.id, a.id]);
    expect(await t.positions(a.id)).toHaveLength(0);
    expect(await t.positions(b.id)).toHaveLength(2);

    for (const [body, error] of [
      [{}, "mode must be simulation, live or all"],
      [{ mode: "everything" }, "mode must be simulation, live or all"],
      [{ mode: "all", agentId: "nope" }, "Invalid agent ID format"],
      [{ mode: "all", pause: "yes" }, "pause must be true or false"],
    ] as const) {
      const r = await closeAll(body);
      expect(r.status).toBe(400);
      expect(JSON.stringify(await json(r))).toContain(error);
    }
  });

  test("a position whose sale fails says so and stays open; the others close", async () => {
    const { a, b } = await twoAgentsFourPositions();
    // No route back to SOL for MINT2 any more: both agents' MINT2 positions cannot be sold.
    t.fake.quote.noRoute.add(MINT2);
    const body = await json(await closeAll({ mode: "all" }));
    const failed = body.results.filter((r: any) => r.status === "failed");
    expect(failed.map((r: any) => r.tokenAddress)).toEqual([MINT2, MINT2]);
    for (const r of failed) expect(r.error).toBeTruthy();
    expect(body.results.filter((r: any) => r.status === "closed").map((r: any) => r.tokenAddress)).toEqual([
      MINT,
      MINT,
    ]);
    expect((await t.positions(a.id)).map((p) => p.tokenAddress)).toEqual([MINT2]);
    expect((await t.positions(b.id)).map((p) => p.tokenAddress)).toEqual([MINT2]);
  });

  test("pause: true pauses the mode first, then closes; the next signal opens nothing", async () => {
    const { a } = await twoAgentsFourPositions();
    const body = await json(await closeAll({ mode: "all", pause: true }));
    expect(body.paused).toBe(true);
    expect(body.results.every((r: any) => r.status === "closed")).toBe(true);
    const status = await json(await t.ctx.request("GET", "/api/v1/trading/status", { token: t.token }));
    expect(status.simulation.paused).toBe(true);
    expect(status.live.paused).toBe(true);
    await t.postSignal({ tokenAddress: MINT });
    await t.settle();
    expect(await t.positions(a.id)).toHaveLength(0);
  });

  test("pause with agentId turns off that agent's automation in the mode; the other agent still trades", async () => {
    const { a, b } = await twoAgentsFourPositions();
    await closeAll({ mode: "simulation", agentId: a.id, pause: true });
    const agentA = await json(await t.ctx.request("GET", `/api/v1/agents/${a.id}`, { token: t.token }));
    expect(agentA.automatedTradingSimulation).toBe(false);
    const status = await json(await t.ctx.request("GET", "/api/v1/trading/status", { token: t.token }));
    expect(status.simulation.paused).toBe(false);
    const signal = await t.postSignal({ tokenAddress: MINT, signalStrength: 5 });
    await t.settle();
    expect(await t.positions(a.id)).toHaveLength(0);
    // b was not paused: it is refused only because it already holds the token.
    const decided = await json(
      await t.ctx.request("GET", `/api/v1/trading-signals/${signal.id}?include=processing`, { token: t.token }),
    );
    const rules = Object.fromEntries(decided.processing.evaluations.map((e: any) => [e.agentId, e.rule]));
    expect(rules).toEqual({ [a.id]: "automation", [b.id]: "open_position" });
  });
});
