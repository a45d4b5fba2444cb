import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SNAPSHOT_INTERVAL_MS, snapshotSlot } from "../../src/agents/portfolio-history.ts";
import { Big } from "../../src/money.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Account value over time per mode (issue 34 item 7; docs/decisions/portfolio-history.md): the
// slot rule, the snapshotter driven by the test clock over the real app, database and fake market,
// and GET /api/v1/portfolio/history.

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const MIN = 60_000;

describe("snapshotSlot: one point per 5-minute slot", () => {
  const cases: [string, number, number | null, number | null][] = [
    ["first ever: the slot now falls in", T0 + 2 * MIN, null, T0],
    ["same slot as the last point: none", T0 + 4 * MIN + 59_999, T0, null],
    ["next slot began: its start", T0 + 5 * MIN, T0, T0 + 5 * MIN],
    ["slots skipped (service was down): the current one", T0 + 62 * MIN, T0, T0 + 60 * MIN],
    ["clock went back: none", T0 + 3 * MIN, T0 + 5 * MIN, null],
  ];
  for (const [name, now, last, want] of cases) test(name, () => expect(snapshotSlot(now, last)).toBe(want));
  test("the interval is 5 minutes", () => expect(SNAPSHOT_INTERVAL_MS).toBe(5 * MIN));
});

let t: TradingContext;
beforeAll(async () => {
  t = await startTrading();
  await t.createAgent({ name: "history" });
  await t.ctx.services.market.solPrice.fetchCurrent();
  await t.postSignal();
  await t.settle();
});
afterAll(() => t.close());

const get = (path: string, token = t.token) => t.ctx.request("GET", path, { token });
const history = async (query: string, token = t.token) => json(await get(`/api/v1/portfolio/history?${query}`, token));

describe("the snapshotter and GET /portfolio/history", () => {
  test("a point per slot, marked to market between trades; the slot's second tick writes nothing", async () => {
    const snap = t.ctx.services.portfolioHistory;
    const start = t.ctx.clock.now();
    expect(await snap.tick()).toBe(1); // simulation only: the user has no live wallet
    expect(await snap.tick()).toBe(0);
    const first = await json(await get("/api/v1/portfolio"));
    // The token's price doubles; no trade happens.
    t.fake.setToken(MINT, { priceUsd: "0.02" });
    t.ctx.clock.advance(5 * MIN);
    await t.ctx.services.trading.monitor.tick(); // the monitor prices the position (no trade: no level is reached)
    expect(await snap.tick()).toBe(1);
    const second = await json(await get("/api/v1/portfolio"));
    expect(second.simulation).toMatchObject({ openPositions: 1, closedTrades: 0 }); // marked, not traded
    expect(new Big(second.simulation.totalValueSol).gt(first.simulation.totalValueSol)).toBe(true);

    const h = await history("mode=simulation");
    const slot0 = new Date(Math.floor(start / SNAPSHOT_INTERVAL_MS) * SNAPSHOT_INTERVAL_MS).toISOString();
    expect(h).toMatchObject({ mode: "simulation", intervalSeconds: 300, retentionDays: 30 });
    expect(h.points.map((p: { at: string }) => p.at)).toEqual([
      slot0,
      new Date(Date.parse(slot0) + 5 * MIN).toISOString(),
    ]);
    const pl = (p: typeof second.simulation) =>
      new Big(p.realizedProfitLossSol).plus(p.unrealizedProfitLossSol).toFixed();
    expect(h.points[0]).toMatchObject({
      totalValueSol: first.simulation.totalValueSol,
      profitLossSol: pl(first.simulation),
    });
    expect(h.points[1]).toMatchObject({
      totalValueSol: second.simulation.totalValueSol,
      profitLossSol: pl(second.simulation),
    });
    expect(new Big(h.points[1].profitLossSol).gt(h.points[0].profitLossSol)).toBe(true);
    expect((await history("mode=live")).points).toEqual([]);
    // from/to bound the answer.
    const only = await history(`mode=simulation&from=${encodeURIComponent(h.points[1].at)}`);
    expect(only.points).toHaveLength(1);
  });

  test("another user sees none of it", async () => {
    const other = await createUser(t.ctx);
    const theirs = await history("mode=simulation", other.token);
    expect(theirs.points).toEqual([]);
  });

  test("bad query parameters are 400 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["mode=", "mode must be simulation or live"],
      ["mode=paper", "mode must be simulation or live"],
      ["mode=live&from=", "from must be an ISO 8601 date"],
      ["mode=live&from=12", "from must be an ISO 8601 date"],
      ["mode=live&to=yesterday", "to must be an ISO 8601 date"],
      ["mode=live&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from must not be after to"],
    ];
    for (const [q, error] of cases) {
      const res = await get(`/api/v1/portfolio/history?${q}`);
      expect([q, res.status]).toEqual([q, 400]);
      expect([q, (await json(res)).error]).toEqual([q, error]);
    }
  });
  test("points older than 30 days are deleted (last: the session's token expires meanwhile)", async () => {
    const snap = t.ctx.services.portfolioHistory;
    const count = () =>
      t.ctx.services.database.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM portfolio_snapshots").get()?.n;
    expect(count()).toBe(2);
    t.ctx.clock.advance(31 * 86_400_000);
    expect(await snap.tick()).toBe(1);
    expect(count()).toBe(1);
  });
});
