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

  test("own data only; the auth matrix; in the OpenAPI document", async () => {
    const other = await createUser(t.ctx);
    const theirs = await json(await get("/api/v1/portfolio", other.token));
    expect(theirs.agents).toBe(0);
    expect(theirs.simulation).toMatchObject({ solBalance: "0", openPositions: 0, closedTrades: 0, totalValueSol: "0" });
    // No or a bad credential 401, a narrow key 403, a full_access key as a JWT.
    // Credentials, scopes and revoked tokens: the generated test covers the route (test/http/route-security.test.ts).
    const doc = await json(await t.ctx.request("GET", "/api/v1/openapi.json"));
    expect(Object.keys(doc.paths["/api/v1/portfolio"])).toEqual(["get"]);
    expect(doc.components.schemas.Portfolio).toBeDefined();
  });
});

test("live wallets get their own totals, never added to the simulation's", async () => {
  const u = await createUser(t.ctx);
  const send = (method: string, path: string, body?: unknown) => t.ctx.request(method, path, { token: u.token, body });
  const agent = await json(await send("POST", "/api/v1/agents", { name: "live one", tradingMode: "live" }));
  // A live wallet as the assignment stores it (its SOL is mirrored from the chain in real use).
  const live = "LiveWa11et1111111111111111111111111111111111";
  t.ctx.database.sqlite
    .query(
      "INSERT INTO agent_wallets (id, agent_id, wallet_address, wallet_type, created_at, updated_at) VALUES (?, ?, ?, 'live', ?, ?)",
    )
    .run(crypto.randomUUID(), agent.id, live, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z");
  // Issue 34: the live row exists as soon as a live wallet is assigned, before it holds or trades anything.
  const before = await json(await send("GET", "/api/v1/portfolio"));
  expect(before.live).toMatchObject({ wallets: 1, solBalance: "0", openPositions: 0 });
  expect(before.simulation.wallets).toBe(1);
  const SOL = "So11111111111111111111111111111111111111112";
  const balance = { agentId: agent.id, walletAddress: live, tokenAddress: SOL, tokenSymbol: "SOL", balance: "2.5" };
  expect((await send("POST", "/api/v1/agent-balances", balance)).status).toBe(201);
  const swap = (walletAddress: string, profitLossSol: string, saleTime: string) =>
    send("POST", "/api/v1/agent-historical-swaps", {
      agentId: agent.id,
      walletAddress,
      tokenAddress: MINT,
      tokenSymbol: "BONK",
      amount: "100",
      purchasePrice: "0.001",
      salePrice: "0.002",
      profitLossSol,
      profitLossUsd: "10",
      purchaseTime: "2025-12-30T00:00:00.000Z",
      saleTime,
      closeReason: "manual",
    });
  expect((await swap(live, "0.1", "2025-12-31T12:00:00.000Z")).status).toBe(201);
  expect((await swap(live, "-0.04", "2026-01-01T00:00:00.000Z")).status).toBe(201);
  const p = await json(await send("GET", "/api/v1/portfolio"));
  expect(p.live).toMatchObject({
    wallets: 1,
    solBalance: "2.5",
    totalValueSol: "2.5",
    closedTrades: 2,
    realizedProfitLossSol: "0.06",
    realizedProfitLossUsd: "20",
    today: { realizedProfitLossSol: "-0.04", realizedProfitLossUsd: "10", closedTrades: 1 },
  });
  // The agent's simulation wallet (10 SOL at creation) stays on the simulation side.
  expect(p.simulation).toMatchObject({ solBalance: "10", closedTrades: 0, realizedProfitLossSol: "0" });
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
