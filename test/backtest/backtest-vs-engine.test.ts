import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Big, decStr, SOL_MINT } from "../../src/money.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 17 acceptance: a backtest of the same signal and configuration as a simulation agent
// yields the same trade as the agent made, price impact included (issue 24: 1 % per quote). The real engine trades on the fake market while the
// price recorder records the same path as 1-minute bars; the backtest then replays those bars.
// Also: the backtest API (202, progress, results, trades JSON/CSV, delete), validation through
// the agent configuration's rules, and another user's backtest is 404.

const CONFIG = {
  takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 2 },
  dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  stopLoss: { enabled: true, percentage: 25 },
};
// USD per token, one price a minute (SOL at $100): DCA at 0.0085 (≤ 0.01 × 90 %, above the stop
// 0.0075), take-profit level 1 at 0.015 and level 2 at 0.02 (moon bag), a new peak at 0.025, then
// the stop-loss at 0.018 (≤ 0.025 × 75 %).
const PATH = ["0.01", "0.01", "0.0085", "0.009", "0.0125", "0.015", "0.02", "0.025", "0.018", "0.018"];

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading();
});
afterEach(() => t.close());

async function tradeThePath(agentId: string) {
  const { ctx } = t;
  for (const [k, usd] of PATH.entries()) {
    if (k > 0) ctx.clock.advance(60_000);
    t.fake.setToken(MINT, { priceUsd: usd });
    if (k === 0) {
      await t.postSignal({ source: "alpha-channel" });
      await t.settle();
    }
    await ctx.services.strategyLab.recorder.tick();
    await ctx.services.trading.monitor.tick();
  }
  return ctx.database.sqlite
    .query<Record<string, string | number>, [string]>(
      `SELECT h.amount, h.purchase_price AS entry, h.sale_price AS exit, h.profit_loss_sol AS pnl,
              h.change_percent AS change, h.close_reason AS reason, p.cost_sol AS cost, p.levels_hit AS levels,
              p.dca_orders AS dca, h.purchase_time AS openedAt, h.sale_time AS closedAt
         FROM historical_swaps h JOIN positions p ON p.id = h.position_id WHERE h.agent_id = ?`,
    )
    .all(agentId);
}

describe("backtest versus the engine", () => {
  test("same signal, same configuration, same price path: same trade, with 1 % price impact on every quote", async () => {
    // Every quote moves the pool 1 % (the aggregator's output is 1 % short): the engine's fills
    // carry it, the service records it per token and size, and the replay applies it.
    t.fake.quote.priceImpactPct = "0.01";
    const agent = await t.createAgent({ config: CONFIG });
    const swaps = await tradeThePath(agent.id);
    expect(swaps).toHaveLength(1);
    const engine = swaps[0]!;
    expect(engine).toMatchObject({ reason: "stop_loss", levels: 2, dca: 1 });
    // The rent is apart from the P/L: the wallet paid it on the buy and got it back after the last
    // sale, whose fees include the account close's, so the P/L is what the wallet gained (to the
    // lamport: the P/L's average cost runs past 9 decimals).
    expect(new Big(t.solBalance(agent.id)).toFixed(9)).toBe(
      new Big(10).plus(engine.pnl!).round(9, Big.roundHalfUp).toFixed(9),
    );

    const { ctx, token } = t;
    // Every quote's impact was recorded for the token, per size bucket.
    const recorded = ctx.database.sqlite
      .query<{ impact: string }, [string]>("SELECT impact_pct AS impact FROM price_impacts WHERE token_address = ?")
      .all(MINT);
    expect(recorded.length).toBeGreaterThan(0);
    expect(new Set(recorded.map((r) => r.impact))).toEqual(new Set(["0.01"]));
    const res = await ctx.request("POST", "/api/v1/backtests", {
      token,
      body: {
        name: "replay",
        initialSol: 10,
        signals: { source: "alpha-channel" },
        variants: [
          { name: "as the agent", config: CONFIG },
          { name: "defaults", config: {} },
        ],
      },
    });
    expect(res.status).toBe(202);
    const { id, status } = await json(res);
    expect(status).toBe("queued");
    const queued = await json(await ctx.request("GET", `/api/v1/backtests/${id}`, { token }));
    expect(queued).toMatchObject({ status: "queued", progress: 0 });

    expect(await ctx.services.strategyLab.worker.tick()).toBe(id);
    const done = await json(await ctx.request("GET", `/api/v1/backtests/${id}`, { token }));
    expect(done).toMatchObject({ status: "done", progress: 1 });
    expect(done.variants[0]).toMatchObject({ name: "as the agent", trades: 1, wins: 1, losses: 0 });
    // The variant's total is the engine's P/L to the nearest lamport (src/backtest/metrics.ts).
    expect(done.variants[0].profitLossSol).toBe(new Big(engine.pnl!).round(9, Big.roundHalfUp).toFixed());

    const trades = await json(
      await ctx.request("GET", `/api/v1/backtests/${id}/trades?variant=as%20the%20agent`, { token }),
    );
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      amount: engine.amount,
      entryPriceSol: engine.entry,
      exitPriceSol: engine.exit,
      costSol: engine.cost,
      profitLossSol: engine.pnl,
      changePercent: engine.change,
      closeReason: engine.reason,
      takeProfitLevels: engine.levels,
      dcaOrders: engine.dca,
      openedAt: engine.openedAt,
      closedAt: engine.closedAt,
    });

    const csv = await ctx.request("GET", `/api/v1/backtests/${id}/trades?format=csv`, { token });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toStartWith("variant,signalId,tokenAddress");
    expect(lines).toHaveLength(3); // header + one trade per variant

    // Another user: 404 on read, trades and delete; the owner's list holds it.
    const other = await createUser(ctx);
    for (const [method, path] of [
      ["GET", `/api/v1/backtests/${id}`],
      ["GET", `/api/v1/backtests/${id}/trades`],
      ["DELETE", `/api/v1/backtests/${id}`],
    ] as const) {
      const r = await ctx.request(method, path, { token: other.token });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect(await json(await ctx.request("GET", "/api/v1/backtests", { token: other.token }))).toEqual([]);
    expect((await json(await ctx.request("GET", "/api/v1/backtests", { token }))).map((b: any) => b.id)).toEqual([id]);
    expect((await ctx.request("DELETE", `/api/v1/backtests/${id}`, { token })).status).toBe(200);
    expect((await ctx.request("GET", `/api/v1/backtests/${id}`, { token })).status).toBe(404);
  });

  test("each quote's price impact is recorded per token and size bucket: the mean of the recent quotes", async () => {
    const { ctx } = t;
    const quote = (lamports: string) =>
      ctx.services.market.quotes.quote({ inputMint: SOL_MINT, outputMint: MINT, amount: lamports, slippageBps: 300 });
    const rows = () =>
      ctx.database.sqlite
        .query<{ bucket: number; impact: string; samples: number }, [string]>(
          "SELECT size_bucket AS bucket, impact_pct AS impact, samples FROM price_impacts WHERE token_address = ? ORDER BY size_bucket",
        )
        .all(MINT);
    t.fake.quote.priceImpactPct = "0.02";
    await quote("500000000"); // 0.5 SOL: bucket 4
    t.fake.quote.priceImpactPct = "0.04";
    await quote("400000000"); // 0.4 SOL: bucket 4 too
    await quote("5000000000"); // 5 SOL: bucket 7
    expect(rows()).toEqual([
      { bucket: 4, impact: "0.03", samples: 2 },
      { bucket: 7, impact: "0.04", samples: 1 },
    ]);
  });

  test("recorded bars are served by GET /tokens/:address/prices, folded on request", async () => {
    await t.createAgent({ config: CONFIG });
    await tradeThePath((await t.createAgent()).id);
    const { ctx, token } = t;
    const start = "2026-01-01T00:00:00.000Z";
    const bars = await json(
      await ctx.request("GET", `/api/v1/tokens/${MINT}/prices?startDate=${start}&endDate=2026-01-01T00:09:00.000Z`, {
        token,
      }),
    );
    expect(bars.map((b: any) => b.close)).toEqual(PATH.map((p) => decStr(new Big(p).div(100))));
    const five = await json(
      await ctx.request(
        "GET",
        `/api/v1/tokens/${MINT}/prices?startDate=${start}&interval=5m&endDate=2026-01-01T00:09:00.000Z`,
        {
          token,
        },
      ),
    );
    expect(five[0]).toEqual({ time: start, open: "0.0001", high: "0.000125", low: "0.000085", close: "0.000125" });
    const bad = await ctx.request("GET", `/api/v1/tokens/${MINT}/prices?interval=2m`, { token });
    expect(bad.status).toBe(400);
  });

  test("variants are validated as agent configurations", async () => {
    const { ctx, token } = t;
    const post = (variants: unknown) =>
      ctx.request("POST", "/api/v1/backtests", {
        token,
        body: { name: "x", initialSol: 1, signals: { signalIds: [1] }, variants },
      });
    const bad = await post([{ name: "a", config: { stopLoss: { percentage: 0 } } }]);
    expect(bad.status).toBe(400);
    const body = await json(bad);
    expect(body.error).toBe("Invalid trading configuration");
    expect(body.details[0]).toStartWith("variants.0.config: stopLoss.percentage");
    const market = await json(await post([{ name: "a", config: { filters: { minLiquidity: 1000 } } }]));
    expect(market.details).toEqual([
      "variants.0.config: filters.minLiquidity: market filters cannot be backtested (no past market data)",
    ]);
    expect((await post([])).status).toBe(400);
    expect((await post(Array.from({ length: 51 }, (_, i) => ({ name: `v${i}` })))).status).toBe(400);
  });
});
