import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 41 item 2: a DCA order is a buy like any other and passes the guard rails' one gate —
// held while the mode is paused, while the daily-loss breaker is tripped, and when it would take
// the account over maxExposureSol — while the stop-loss and a manual close still sell. A held
// order is not cancelled: once the gate opens, the next tick places it. Numbers: SOL at $100,
// BONK bought at $0.01 for 5 % of 10 SOL = 0.5 SOL; DCA order k fires 10 % lower each and buys
// 50 % of the opening 0.5 SOL.

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

const DCA = { enabled: true, maxOrders: 7, priceDropTriggerPercentage: 10, amountPercentage: 50 };
const tick = () => t.ctx.services.trading.monitor.tick();
const price = (usd: string) => t.fake.setToken(MINT, { priceUsd: usd });
const call = async (method: string, path: string, body?: unknown) => {
  const res = await t.ctx.request(method, `/api/v1${path}`, { token: t.token, body });
  return { status: res.status, body: (await res.json()) as any };
};
const dcaBuys = (agentId: string) => t.count("agent_transactions", "agent_id = ? AND is_dca = 1", agentId);
const skipped = (agentId: string) =>
  t.ctx.logs
    .map((line) => JSON.parse(line))
    .filter((l) => l.msg === "DCA order skipped" && l.agentId === agentId)
    .map((l) => `${l.rule}: ${l.reason}`);

async function openPosition(config: Record<string, unknown> = {}) {
  const agent = await t.createAgent({ config: { stopLoss: { enabled: false }, dca: DCA, ...config } });
  await t.postSignal();
  await t.settle();
  const [pos] = await t.positions(agent.id);
  expect(pos.purchase.amount).toBe(5000);
  return { agent, pos };
}

describe("DCA passes the gate", () => {
  test("paused (all): a falling position buys nothing more; a manual close still sells; resume places the order", async () => {
    const { agent, pos } = await openPosition();
    expect((await call("POST", "/trading/pause", { mode: "all" })).status).toBe(200);
    for (const usd of ["0.009", "0.008", "0.007", "0.006"]) {
      price(usd);
      await tick();
    }
    expect(dcaBuys(agent.id)).toBe(0);
    expect(skipped(agent.id)[0]).toBe(
      "paused: Trading is paused for simulation mode; POST /api/v1/trading/resume resumes it",
    );
    expect((await call("GET", `/agent-positions/${agent.id}`)).body[0].purchase.amount).toBe(5000);

    expect((await call("POST", "/trading/resume", { mode: "all" })).status).toBe(200);
    await tick();
    expect(dcaBuys(agent.id)).toBe(1);

    // Paused again: the manual close goes through.
    await call("POST", "/trading/pause", { mode: "all" });
    const closed = await t.ctx.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`, {
      token: t.token,
    });
    expect(closed.status).toBe(200);
    expect((await json(closed)).success).toBe(true);
    expect(t.count("positions", "id = ? AND status = 'closed'", pos.id)).toBe(1);
  });

  test("a tripped daily-loss breaker holds DCA orders", async () => {
    await call("PUT", "/risk-limits", { simulation: { dailyLossLimitSol: 0.04 } });
    const { agent } = await openPosition();
    // −10 %: order 1 is due, and the position has lost 0.05 SOL, over the 0.04 limit.
    price("0.009");
    await tick();
    price("0.008");
    await tick();
    expect(dcaBuys(agent.id)).toBe(0);
    expect(skipped(agent.id)[0]).toStartWith("risk_limit: dailyLossLimitSol: the daily loss breaker tripped at ");
    expect((await call("GET", "/trading/status")).body.simulation.tripped).not.toBeNull();
  });

  test("maxExposureSol holds a DCA order that would pass it", async () => {
    await call("PUT", "/risk-limits", { simulation: { maxExposureSol: 0.6 } });
    const { agent } = await openPosition();
    price("0.009");
    await tick();
    expect(dcaBuys(agent.id)).toBe(0);
    expect(skipped(agent.id)[0]).toBe(
      "risk_limit: maxExposureSol: 0.500105 SOL open plus this trade's 0.25 SOL is over the limit of 0.6 SOL",
    );
    // Raised: the order fits.
    await call("PUT", "/risk-limits", { simulation: { maxExposureSol: 1 } });
    await tick();
    expect(dcaBuys(agent.id)).toBe(1);
  });
});
