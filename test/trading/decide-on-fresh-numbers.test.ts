import { afterEach, describe, expect, test } from "bun:test";
import { FakeMarket } from "../fakes/market.ts";
import { json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 24 items 3 and 4: the monitor decides on fresh numbers only.
// - No decision on a stale number: while SOL/USD is stale a token's price in SOL comes from a sell
//   quote (SOL-denominated), or the position waits and says so (waitingReason, the log).
// - Decide at the moment of acting: under the position's lock the configuration and the price are
//   read again before each action, and a take-profit sale carries a price floor.
// Figures: SOL at $100, BONK bought at $0.01 (0.0001 SOL), 0.5 SOL for 5000 tokens.

let t: TradingContext;
afterEach(async () => {
  await t?.close();
});

const tick = () => t.ctx.services.trading.monitor.tick();
const row = (id: string) =>
  t.ctx.database.sqlite
    .query<
      { status: string; close_reason: string | null; levels_hit: number; remaining_amount: string; dca_orders: number },
      [string]
    >("SELECT status, close_reason, levels_hit, remaining_amount, dca_orders FROM positions WHERE id = ?")
    .get(id)!;
const logLines = () => t.ctx.logs.map((l) => JSON.parse(l));

async function openOn(mint: string, agentId: string) {
  await t.postSignal({ tokenAddress: mint, symbol: mint === MINT ? "BONK" : "WIF" });
  await t.settle();
  const p = (await t.positions(agentId)).find((x: any) => x.tokenAddress === mint);
  expect(p).toBeDefined();
  return p;
}

const ALL_RULES = {
  stopLoss: { enabled: true, percentage: 25 },
  takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: { enabled: true, maxOrders: 2, priceDropTriggerPercentage: 10, amountPercentage: 50 },
};

describe("no decision on a stale SOL/USD", () => {
  // The SOL/USD feed (Jupiter) is unreachable from the start; Hermes serves the price at the buy and
  // then fails: once 60 s pass without an update the value is stale and cannot be refreshed.
  async function staleSol() {
    t = await startTrading({ env: { SOL_PRICE_FEED_URL: "http://127.0.0.1:9" } });
    const agent = await t.createAgent({ config: ALL_RULES });
    const pos = await openOn(MINT, agent.id);
    t.fake.inject("hermes.latest", ...Array.from({ length: 50 }, () => ({ status: 500 })));
    t.ctx.clock.advance(61_000);
    return { agent, pos };
  }

  test("SOL −30 %, the token's price in SOL unchanged: not stopped out, no DCA (priced from a sell quote)", async () => {
    const { agent, pos } = await staleSol();
    t.fake.setSolPrice(70);
    t.fake.setToken(MINT, { priceUsd: "0.007" }); // 0.0001 SOL, as at the buy
    const report = await tick();
    expect(report).toMatchObject({ priced: 1, actions: 0, closed: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", dca_orders: 0, levels_hit: 0 });
    const [p] = await t.positions(agent.id);
    expect(p.waitingReason).toBeNull();
    expect(p.current.priceNative).toBe(0.0001);
    expect(logLines().some((l) => l.msg === "rule triggered")).toBe(false);
  });

  test("SOL +60 %, the token's price in SOL unchanged: no false take-profit", async () => {
    const { pos } = await staleSol();
    t.fake.setSolPrice(160);
    t.fake.setToken(MINT, { priceUsd: "0.016" });
    expect(await tick()).toMatchObject({ priced: 1, actions: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", levels_hit: 0, remaining_amount: "5000" });
  });

  test("a real fall in SOL is still acted on: the quote prices it", async () => {
    const { pos } = await staleSol();
    t.fake.setSolPrice(70);
    t.fake.setToken(MINT, { priceUsd: "0.0049" }); // 0.00007 SOL: −30 % in SOL
    expect(await tick()).toMatchObject({ actions: 1, closed: 1 });
    expect(row(pos.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
  });

  test("no quote either: the position waits, says why in its status and the log, and acts on nothing", async () => {
    const { agent, pos } = await staleSol();
    t.fake.setSolPrice(70);
    t.fake.setToken(MINT, { priceUsd: "0.007" });
    t.fake.quote.noRoute.add(MINT);
    expect(await tick()).toMatchObject({ positions: 1, priced: 0, actions: 0 });
    expect(row(pos.id).status).toBe("open");
    const [p] = await t.positions(agent.id);
    expect(p.waitingReason).toContain("SOL/USD is stale");
    const line = logLines().find((l) => l.msg === "position waits: no usable price");
    expect(line).toMatchObject({ positionId: pos.id, tokenAddress: MINT });
    expect(line.reason).toContain("SOL/USD is stale");

    // SOL/USD comes back: priced again, the wait is gone.
    t.fake.clearInjected();
    t.fake.quote.noRoute.delete(MINT);
    expect(await tick()).toMatchObject({ priced: 1, actions: 0 });
    expect((await t.positions(agent.id))[0].waitingReason).toBeNull();
  });
});

describe("no decision on an old token price", () => {
  test("a price the price source's cache kept for more than two ticks is not decided on: the position waits", async () => {
    // A 60 s price cache with the monitor ticking every 10 s: a cached price can be 20 s+ old.
    const market = { ...new FakeMarket().serviceOptions().market, tokenPriceCacheTtlMs: 60_000 };
    t = await startTrading({ services: { market } });
    const agent = await t.createAgent({ config: { stopLoss: { enabled: true, percentage: 25 } } });
    const pos = await openOn(MINT, agent.id);
    t.ctx.clock.advance(61_000);
    // A dip is priced (and cached), then the price recovers; the cache still holds the dip.
    t.fake.setToken(MINT, { priceUsd: "0.006" });
    await t.ctx.services.market.tokenPrices.getPrices([MINT]);
    t.fake.setToken(MINT, { priceUsd: "0.01" });
    t.ctx.clock.advance(25_000);
    expect(await tick()).toMatchObject({ priced: 0, actions: 0 });
    expect(row(pos.id).status).toBe("open");
    expect((await t.positions(agent.id))[0].waitingReason).toBe("the token's price is older than two monitor ticks");
    // Once the cache lets go, the current price decides (no stop-loss at 0.01).
    t.ctx.clock.advance(40_000);
    expect(await tick()).toMatchObject({ priced: 1, actions: 0 });
    expect((await t.positions(agent.id))[0].waitingReason).toBeNull();
  });
});

describe("decide at the moment of acting", () => {
  test("stop-loss disabled by PUT while the tick's first sale is in flight: the second position is not stopped out", async () => {
    t = await startTrading();
    const agent = await t.createAgent({ config: { stopLoss: { enabled: true, percentage: 25 } } });
    t.fake.setToken(MINT2, { priceUsd: "2" });
    const first = await openOn(MINT, agent.id);
    t.ctx.clock.advance(1_000); // the second opens later: actions run oldest first
    const second = await openOn(MINT2, agent.id);
    // Both fall 40 %: both stop-losses fire in this tick's plan.
    t.fake.setToken(MINT, { priceUsd: "0.006" });
    t.fake.setToken(MINT2, { priceUsd: "1.2" });
    const sale = t.fake.hold("jupiter.build");
    const ticking = tick();
    await sale.reached; // the first position's sale is being quoted
    const put = await t.ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
      token: t.token,
      // Applied to the open positions: without it they keep the stop they opened with (issue 44 item 2).
      body: { config: { stopLoss: { enabled: false } }, applyToOpenPositions: true },
    });
    expect(put.status).toBe(200);
    sale.release();
    const report = await ticking;
    expect(report).toMatchObject({ actions: 2, closed: 1 });
    expect(row(first.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
    expect(row(second.id).status).toBe("open");
  });

  test("a price that moved while an earlier action was in flight is read again before the next action", async () => {
    t = await startTrading();
    const agent = await t.createAgent({
      config: { ...ALL_RULES, stopLoss: { enabled: true, percentage: 50 }, dca: { enabled: false } },
    });
    t.fake.setToken(MINT2, { priceUsd: "2" });
    const first = await openOn(MINT2, agent.id);
    t.ctx.clock.advance(1_000);
    const second = await openOn(MINT, agent.id);
    t.fake.setToken(MINT2, { priceUsd: "0.8" }); // −60 %: stop-loss
    t.fake.setToken(MINT, { priceUsd: "0.016" }); // +60 %: take-profit level 1
    const sale = t.fake.hold("jupiter.build");
    const ticking = tick();
    await sale.reached;
    t.fake.setToken(MINT, { priceUsd: "0.0085" }); // −15 % by the time its turn comes
    sale.release();
    expect(await ticking).toMatchObject({ actions: 2, closed: 1 });
    expect(row(first.id)).toMatchObject({ status: "closed", close_reason: "stop_loss" });
    // Decided at +60 % (a take-profit), acted on at −15 %: nothing (the stop is 50 % under the peak).
    expect(row(second.id)).toMatchObject({ status: "open", levels_hit: 0, dca_orders: 0 });
    expect(
      t.count("agent_transactions", "agent_id = ? AND input_mint = ? AND transaction_type = 'SELL'", agent.id, MINT),
    ).toBe(0);
  });

  test("a take-profit decided at +60 % is not sold at −15 %: the sale carries the level's price less slippage as a floor", async () => {
    t = await startTrading();
    const agent = await t.createAgent({ config: ALL_RULES });
    const pos = await openOn(MINT, agent.id);
    t.fake.setToken(MINT, { priceUsd: "0.016" });
    const quote = t.fake.hold("jupiter.build");
    const ticking = tick();
    await quote.reached; // decided on +60 %; the quote is answered after the price fell
    t.fake.setToken(MINT, { priceUsd: "0.0085" });
    quote.release();
    // Refused by the floor: a failed trade (logged), nothing sold; the next tick decides again.
    expect(await ticking).toMatchObject({ actions: 1, failed: 1, closed: 0 });
    expect(row(pos.id)).toMatchObject({ status: "open", levels_hit: 0, remaining_amount: "5000" });
    expect(t.count("agent_transactions", "agent_id = ? AND transaction_type = 'SELL'", agent.id)).toBe(0);
    expect(JSON.stringify(logLines().filter((l) => l.level !== "debug" && l.positionId === pos.id))).toContain(
      "below the sale's price floor",
    );

    // At the level the sale goes through: 2500 tokens at 0.00016 SOL (floor 2500 × 0.00015 × 0.97).
    t.fake.setToken(MINT, { priceUsd: "0.016" });
    await tick();
    expect(row(pos.id)).toMatchObject({ levels_hit: 1, remaining_amount: "2500" });
    const [p] = await t.positions(agent.id);
    expect(p.takeProfit.levelsHit).toBe(1);
  });

  test("openPosition answers one tagged result", async () => {
    t = await startTrading();
    const agent = await t.createAgent();
    const engine = t.ctx.services.trading.engine;
    const signal = await t.postSignal();
    await t.settle();
    const wallet = agent.walletAddress;
    const req = {
      agent: { id: agent.id, userId: t.userId, name: "agent", tradingMode: "simulation" as const },
      config: (await json(await t.ctx.request("GET", `/api/v1/agents/${agent.id}/config`, { token: t.token }))).config,
      walletAddress: wallet,
      signal: { id: signal.id, tokenAddress: MINT, symbol: "BONK" },
      sizeSol: new (await import("../../src/money.ts")).Big("0.5"),
    };
    expect(await engine.openPosition(req)).toEqual({
      status: "skipped",
      rule: "already_traded",
      reason: "signal already traded by this agent",
    });
    const other = await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
    await t.settle();
    t.fake.quote.noRoute.add(MINT2);
    const failed = await engine.openPosition({
      ...req,
      signal: { id: other.id + 1000, tokenAddress: MINT2, symbol: "WIF" },
    });
    expect(failed.status).toBe("failed");
  });
});
