import { afterEach, describe, expect, test } from "bun:test";
import { createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 44 item 2: a position keeps the exit rules it was opened with. PUT /agents/:id/config
// changes them for new positions, and for open ones only with applyToOpenPositions (recorded on
// the position, shown as Position.exitConfig).
// Figures: SOL at $100, BONK bought at $0.01 (0.0001 SOL), 0.5 SOL for 5000 tokens.

let t: TradingContext;
const tick = () => t.ctx.services.trading.monitor.tick();
const row = (id: string) =>
  t.ctx.database.sqlite
    .query<{ status: string; close_reason: string | null; dca_orders: number; levels_hit: number }, [string]>(
      "SELECT status, close_reason, dca_orders, levels_hit FROM positions WHERE id = ?",
    )
    .get(id)!;
afterEach(async () => {
  await t?.close();
});

const EDIT = {
  stopLoss: { enabled: true, percentage: 10 },
  takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 5, amountPercentage: 50 },
};

async function openWithStop25() {
  t = await startTrading();
  const agent = await t.createAgent({ config: { stopLoss: { enabled: true, percentage: 25 } } });
  await t.postSignal({ tokenAddress: MINT, symbol: "BONK" });
  await t.settle();
  const [pos] = await t.positions(agent.id);
  return { agent, pos };
}

const put = (agentId: string, body: unknown) =>
  t.ctx.request("PUT", `/api/v1/agents/${agentId}/config`, { token: t.token, body });

describe("a configuration edit and the open positions", () => {
  test("without applyToOpenPositions: the stop stays at 25 %, no take-profit or DCA appears, none fires", async () => {
    const { agent, pos } = await openWithStop25();
    expect(pos.exitConfig).toMatchObject({ source: "opened", since: pos.purchase.transaction.time });
    const res = await put(agent.id, { config: EDIT });
    expect(res.status).toBe(200);
    expect(await json(res)).not.toHaveProperty("appliedToOpenPositions");

    const [after] = await t.positions(agent.id);
    expect(after.levels.stopLossPrice).toBe(0.000075);
    expect(after.levels.takeProfit).toEqual([]);
    expect(after.levels.dca).toEqual([]);
    expect(after.stopLoss.percentage).toBe(25);
    expect(after.exitConfig).toMatchObject({
      source: "opened",
      stopLoss: { enabled: true, percentage: 25 },
      takeProfit: { enabled: false },
      dca: { enabled: false },
    });

    // −15 %: under the edited 10 % stop and the 5 % DCA trigger, above the position's 25 % stop.
    t.fake.setToken(MINT, { priceUsd: "0.0085" });
    expect(await tick()).toMatchObject({ actions: 0, closed: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", dca_orders: 0 });
    // +60 %: the edited take-profit would sell level 1.
    t.fake.setToken(MINT, { priceUsd: "0.016" });
    expect(await tick()).toMatchObject({ actions: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", levels_hit: 0 });
  });

  test("a position opened after the edit follows the edited rules", async () => {
    const { agent } = await openWithStop25();
    expect((await put(agent.id, { config: EDIT })).status).toBe(200);
    t.fake.setToken(MINT2, { priceUsd: "2" });
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    const second = (await t.positions(agent.id)).find((p: any) => p.tokenAddress === MINT2);
    expect(second.exitConfig).toMatchObject({ source: "opened", stopLoss: { percentage: 10 } });
    expect(second.levels.takeProfit).toHaveLength(3);
    t.fake.setToken(MINT2, { priceUsd: "1.7" }); // −15 %: stopped out at 10 %
    await tick();
    expect(row(second.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
  });

  test("with applyToOpenPositions: the open position takes the edit, recorded on it, and the monitor acts on it", async () => {
    const { agent, pos } = await openWithStop25();
    t.ctx.clock.advance(60_000);
    const res = await put(agent.id, { config: EDIT, applyToOpenPositions: true });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.appliedToOpenPositions).toBe(1);
    expect(body.config.stopLoss.percentage).toBe(10);

    const [after] = await t.positions(agent.id);
    expect(after.levels.stopLossPrice).toBe(0.00009);
    expect(after.levels.takeProfit).toHaveLength(3);
    expect(after.exitConfig).toMatchObject({
      source: "applied",
      since: new Date(t.ctx.clock.now()).toISOString(),
      stopLoss: { percentage: 10 },
    });
    t.fake.setToken(MINT, { priceUsd: "0.0085" });
    await tick();
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
  });

  test("a position stored without exit rules (opened before they were kept) follows the agent's", async () => {
    const { agent, pos } = await openWithStop25();
    t.ctx.database.sqlite.query("UPDATE positions SET exit_config = NULL WHERE id = ?").run(pos.id);
    expect((await put(agent.id, { config: EDIT })).status).toBe(200);
    const [after] = await t.positions(agent.id);
    expect(after.exitConfig).toMatchObject({ source: "agent", since: null, stopLoss: { percentage: 10 } });
  });

  test("applyToOpenPositions that is not a boolean: 400 with the configuration error shape, nothing changed", async () => {
    const { agent, pos } = await openWithStop25();
    const res = await put(agent.id, { config: EDIT, applyToOpenPositions: "yes" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "Invalid trading configuration",
      details: ["applyToOpenPositions must be true or false"],
    });
    const [after] = await t.positions(agent.id);
    expect(after.exitConfig.stopLoss.percentage).toBe(25);
    expect(pos.id).toBe(after.id);
  });

  test("another user's agent: 404, its positions untouched", async () => {
    const { agent } = await openWithStop25();
    const other = await createUser(t.ctx);
    const res = await t.ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token: other.token,
      body: { config: EDIT, applyToOpenPositions: true },
    });
    expect(res.status).toBe(404);
    const [after] = await t.positions(agent.id);
    expect(after.exitConfig.source).toBe("opened");
  });
});
