import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { isoWeek } from "../../src/trading/pnl-report.ts";
import { createAgent } from "../agents/fixtures.ts";
import { createUser, json, login } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// GET /api/v1/reports/pnl (issue 44 item 4; docs/decisions/operator-experience-v.md "Reports"):
// realized P/L by UTC day, ISO week and token, per agent or for the account, in JSON and CSV.
// Trades run through the real engine, monitor and fake market under a manual clock:
// - agent A buys BONK on Thu 2026-01-01, sells half at a take-profit level that day, and closes
//   the rest on Sat 2026-01-03 (both in ISO week 2026-W01, which starts Mon 2025-12-29);
// - agent B buys WIF on Tue 2026-01-06 (week 2026-W02) and closes it the same day.

let t: TradingContext;
let a: { id: string };
let b: { id: string };
const DAY = 86_400_000;
/** The take-profit sale's realized P/L (test/trading/pnl-agreement.test.ts works it out). */
const TP_REALIZED = "0.1248425";

const get = (path: string, token = t.token) => t.ctx.request("GET", path, { token });
const report = async (query: string) => {
  const res = await get(`/api/v1/reports/pnl?${query}`);
  expect(res.status, query).toBe(200);
  return json(res);
};
const perf = async (id: string) => json(await get(`/api/v1/agents/${id}/performance`));
const close = async (agentId: string, mint: string) => {
  const open = await json(await get(`/api/v1/agent-positions/${agentId}`));
  const pos = open.find((p: any) => p.tokenAddress === mint);
  const res = await t.ctx.request("POST", `/api/v1/agent-positions/${agentId}/${pos.id}/close`, {
    token: t.token,
    body: { reason: "manual" },
  });
  expect(res.status).toBe(200);
};

/** Moves the clock on; a new login, as the access token of the previous day has expired. */
const later = async (ms: number) => {
  t.ctx.clock.advance(ms);
  t.token = (await login(t.ctx)).token;
  await t.ctx.services.market.solPrice.fetchCurrent();
};

beforeAll(async () => {
  t = await startTrading();
  await t.ctx.services.market.solPrice.fetchCurrent();
  a = await t.createAgent({
    name: "alpha",
    config: {
      stopLoss: { enabled: false, percentage: 25 },
      takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 2 },
    },
  });
  await t.postSignal();
  await t.settle();
  t.fake.setToken(MINT, { priceUsd: "0.015" });
  await later(3_600_000); // 01:00 on Jan 1
  expect(await t.ctx.services.trading.monitor.tick()).toMatchObject({ actions: 1, failed: 0 });
  await later(2 * DAY); // Jan 3
  t.fake.setToken(MINT, { priceUsd: "0.012" });
  await close(a.id, MINT);
  await later(3 * DAY); // Jan 6
  // A stops trading; B is the only buyer of WIF.
  await t.ctx.request("PUT", `/api/v1/agents/${a.id}`, {
    token: t.token,
    body: { automatedTradingSimulation: false },
  });
  b = await t.createAgent({ name: "beta", token: t.token });
  await t.postSignal({ tokenAddress: MINT2, symbol: "WIF" });
  await t.settle();
  t.fake.setToken(MINT2, { priceUsd: "1.5" });
  await close(b.id, MINT2);
});
afterAll(() => t.close());

describe("GET /api/v1/reports/pnl", () => {
  test("by UTC day: the take-profit sale on its day, the close on its own", async () => {
    const r = await report(`groupBy=day&agentId=${a.id}`);
    const pa = await perf(a.id);
    expect(r).toMatchObject({ groupBy: "day", agentId: a.id, mode: "simulation", from: null, to: null });
    expect(r.rows.map((x: any) => [x.key, x.periodStart, x.sales])).toEqual([
      ["2026-01-01", "2026-01-01", 1],
      ["2026-01-03", "2026-01-03", 1],
    ]);
    expect(r.rows[0].realizedProfitLossSol).toBe(TP_REALIZED);
    // The days sum to the closed position's P/L, the figure the performance shows: one formula.
    const closeDay = new Big(pa.realizedProfitLossSol).minus(TP_REALIZED);
    expect(r.rows[1].realizedProfitLossSol).toBe(closeDay.toFixed());
    expect(r.total.realizedProfitLossSol).toBe(pa.realizedProfitLossSol);
    expect(r.total.sales).toBe(2);
    // USD at the sale's SOL price ($100 throughout).
    expect(r.rows[0].realizedProfitLossUsd).toBe(new Big(TP_REALIZED).times(100).toFixed());
  });

  test("by ISO week (Monday) and for the whole account", async () => {
    const r = await report("groupBy=week");
    const [pa, pb] = [await perf(a.id), await perf(b.id)];
    expect(r.agentId).toBeNull();
    expect(r.rows.map((x: any) => [x.key, x.periodStart, x.sales])).toEqual([
      ["2026-W01", "2025-12-29", 2],
      ["2026-W02", "2026-01-05", 1],
    ]);
    expect(r.rows[0].realizedProfitLossSol).toBe(pa.realizedProfitLossSol);
    expect(r.rows[1].realizedProfitLossSol).toBe(pb.realizedProfitLossSol);
    expect(r.total.realizedProfitLossSol).toBe(
      new Big(pa.realizedProfitLossSol).plus(pb.realizedProfitLossSol).toFixed(),
    );
  });

  test("by token, and from/to bound the sales' times", async () => {
    const r = await report("groupBy=token");
    const [pa, pb] = [await perf(a.id), await perf(b.id)];
    const byKey = Object.fromEntries(r.rows.map((x: any) => [x.key, x]));
    expect(byKey[MINT]).toMatchObject({
      tokenSymbol: "BONK",
      sales: 2,
      realizedProfitLossSol: pa.realizedProfitLossSol,
    });
    expect(byKey[MINT2]).toMatchObject({
      tokenSymbol: "WIF",
      sales: 1,
      realizedProfitLossSol: pb.realizedProfitLossSol,
    });
    const jan2on = await report("groupBy=day&from=2026-01-02T00:00:00Z&to=2026-01-04T00:00:00Z");
    expect(jan2on.rows.map((x: any) => x.key)).toEqual(["2026-01-03"]);
    expect((await report("groupBy=day&mode=live")).rows).toEqual([]);
  });

  test("CSV export: the same rows, as the other exports write them", async () => {
    const res = await get(`/api/v1/reports/pnl/export?groupBy=day&agentId=${a.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="pnl-by-day.csv"');
    const lines = (await res.text()).split("\r\n");
    expect(lines[0]).toBe("key,periodStart,tokenSymbol,sales,realizedProfitLossSol,realizedProfitLossUsd");
    expect(lines[1]).toStartWith(`2026-01-01,2026-01-01,,1,${TP_REALIZED},`);
    expect(lines).toHaveLength(4); // two rows and the trailing CRLF
  });

  test("another user's agent is 404; bad parameters are 400", async () => {
    const other = await createUser(t.ctx);
    const foreign = await createAgent(t.ctx, other.token, { name: "theirs" });
    for (const path of ["/api/v1/reports/pnl", "/api/v1/reports/pnl/export"]) {
      const res = await get(`${path}?groupBy=day&agentId=${foreign.id}`);
      expect(res.status).toBe(404);
    }
    for (const [q, error] of [
      ["groupBy=month", "groupBy must be day, week or token"],
      ["groupBy=day&mode=paper", "mode must be simulation or live"],
      ["groupBy=day&from=yesterday", "from must be an ISO 8601 date"],
      ["groupBy=day&from=2026-01-05T00:00:00Z&to=2026-01-01T00:00:00Z", "from must not be after to"],
    ]) {
      const res = await get(`/api/v1/reports/pnl?${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).error).toBe(error);
    }
  });
});

test("ISO weeks across year ends", () => {
  expect(isoWeek("2024-12-30")).toEqual({ key: "2025-W01", start: "2024-12-30" }); // a Monday in 2025's week 1
  expect(isoWeek("2027-01-01")).toEqual({ key: "2026-W53", start: "2026-12-28" }); // a Friday: 2026 has 53 weeks
  expect(isoWeek("2026-01-04")).toEqual({ key: "2026-W01", start: "2025-12-29" }); // a Sunday ends the week
  expect(isoWeek("2026-01-05")).toEqual({ key: "2026-W02", start: "2026-01-05" });
});
