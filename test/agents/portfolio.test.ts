import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// GET /api/v1/portfolio (the overview's totals across agents), the positions' `levels`, and the
// signal list's `symbol` filter: the real app over a real database and the fake market.

let t: TradingContext;
let a: { id: string };
let b: { id: string };

beforeAll(async () => {
  t = await startTrading();
  a = await t.createAgent({
    name: "levels",
    config: {
      takeProfit: { enabled: true, percentage: 50, maxLevels: 2 },
      dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 10 },
    },
  });
  b = await t.createAgent({ name: "plain" });
  await t.ctx.services.market.solPrice.fetchCurrent(); // the SOL/USD price the USD total uses
  await t.postSignal();
  await t.settle();
  // b closes at +20 %: one closed trade with a profit.
  t.fake.setToken(MINT, { priceUsd: "0.012" });
  const [pos] = await t.positions(b.id);
  const closed = await t.ctx.request("POST", `/api/v1/agent-positions/${b.id}/${pos.id}/close`, {
    token: t.token,
    body: { reason: "manual" },
  });
  expect(closed.status).toBe(200);
});
afterAll(() => t.close());

const get = (path: string, token = t.token) => t.ctx.request("GET", path, { token });
const perf = async (id: string) => json(await get(`/api/v1/agents/${id}/performance`));

describe("GET /api/v1/portfolio", () => {
  test("sums the user's agents per mode, the figures the agent pages show", async () => {
    const res = await get("/api/v1/portfolio");
    expect(res.status).toBe(200);
    const p = await json(res);
    const [pa, pb] = [await perf(a.id), await perf(b.id)];
    const [open] = await t.positions(a.id);
    const sol = new Big(t.solBalance(a.id)).plus(t.solBalance(b.id));

    expect(p.agents).toBe(2);
    expect(p.todayStart).toBe("2026-01-01T00:00:00.000Z"); // UTC midnight of the test clock
    const sim = p.simulation;
    expect(sim.solBalance).toBe(sol.toFixed());
    expect(sim.openPositions).toBe(1);
    expect(Number(sim.positionsValueSol)).toBeCloseTo(open.current.valueNative, 9);
    expect(sim.totalValueSol).toBe(sol.plus(sim.positionsValueSol).toFixed());
    expect(sim.closedTrades).toBe(1);
    expect(sim.realizedProfitLossSol).toBe(pb.realizedProfitLossSol);
    expect(sim.realizedProfitLossUsd).toBe(pb.realizedProfitLossUsd);
    expect(new Big(sim.realizedProfitLossSol).gt(0)).toBe(true);
    expect(sim.unrealizedProfitLossSol).toBe(
      new Big(pa.unrealizedProfitLossSol).plus(pb.unrealizedProfitLossSol).toFixed(),
    );
    expect(sim.today).toEqual({
      realizedProfitLossSol: sim.realizedProfitLossSol,
      realizedProfitLossUsd: sim.realizedProfitLossUsd,
      closedTrades: 1,
    });
    expect(p.solUsdPrice).toBe("100.00000000");
    expect(sim.totalValueUsd).toBe(new Big(sim.totalValueSol).times(100).round(2, Big.roundDown).toFixed());
    // No live wallet: live SOL is never mixed with the simulation's virtual SOL.
    expect(p.live).toMatchObject({ solBalance: "0", openPositions: 0, totalValueSol: "0", closedTrades: 0 });
  });

  test("todayStart moves the start of today; a bad one is 400", async () => {
    const later = await json(await get("/api/v1/portfolio?todayStart=2026-01-02T00:00:00%2B01:00"));
    expect(later.todayStart).toBe("2026-01-01T23:00:00.000Z");
    expect(later.simulation.today).toEqual({ realizedProfitLossSol: "0", realizedProfitLossUsd: "0", closedTrades: 0 });
    const bad = await get("/api/v1/portfolio?todayStart=yesterday");
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBe("todayStart must be an ISO 8601 date");
  });

  test("own data only; 401 without a credential; in the OpenAPI document", async () => {
    const other = await createUser(t.ctx);
    const theirs = await json(await get("/api/v1/portfolio", other.token));
    expect(theirs.agents).toBe(0);
    expect(theirs.simulation).toMatchObject({ solBalance: "0", openPositions: 0, closedTrades: 0, totalValueSol: "0" });
    const none = await t.ctx.request("GET", "/api/v1/portfolio");
    expect(none.status).toBe(401);
    expect((await json(none)).error).toBe("Authorization header required");
    const doc = await json(await t.ctx.request("GET", "/api/v1/openapi.json"));
    expect(Object.keys(doc.paths["/api/v1/portfolio"])).toEqual(["get"]);
    expect(doc.components.schemas.Portfolio).toBeDefined();
  });
});

describe("position levels", () => {
  test("stop, every take-profit level and the DCA orders to come, from the rules", async () => {
    const [pos] = await t.positions(a.id);
    // Entry 0.0001 SOL (0.01 USD at 100 USD/SOL); peak 0.0001; stop 25 % below it.
    expect(pos.purchase.priceNative).toBe(0.0001);
    expect(pos.levels).toEqual({
      stopLossPrice: 0.000075,
      takeProfit: [
        { level: 1, price: 0.00015, hit: false },
        { level: 2, price: 0.0002, hit: false },
      ],
      dca: [
        { order: 1, price: 0.00009 },
        { order: 2, price: 0.00008 },
      ],
      dcaOrdersFilled: 0,
    });
  });
});

describe("GET /trading-signals?symbol=", () => {
  test("matches the symbol in any case, in the list and the export", async () => {
    await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    const bonk = await json(await get("/api/v1/trading-signals?symbol=bonk"));
    expect(bonk.length).toBe(1);
    expect(bonk[0].symbol).toBe("BONK");
    const wif = await json(await get("/api/v1/trading-signals?symbol=WIF"));
    expect(wif.map((s: { tokenAddress: string }) => s.tokenAddress)).toEqual([MINT2]);
    expect(await json(await get("/api/v1/trading-signals?symbol=NOPE"))).toEqual([]);
    const csv = await (await get("/api/v1/trading-signals/export?symbol=wif")).text();
    expect(csv).toContain("WIF");
    expect(csv).not.toContain("BONK");
    const long = await get(`/api/v1/trading-signals?symbol=${"X".repeat(51)}`);
    expect(long.status).toBe(400);
  });
});
