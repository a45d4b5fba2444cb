import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { median, signalOutcome } from "../../src/backtest/signal-source-report.ts";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";

// GET /api/v1/signal-sources/report (issue 17 item 5) over hand-built 1-minute bars, numbers
// worked out by hand. Window 24 h, +50 % / −25 % unless the query says otherwise. A signal
// enters at the close of the first bar at or after it (like the backtest); each bar is its close.

const NOW = Date.parse("2026-01-01T00:00:00.000Z"); // ManualClock's start
const MIN = 60_000;
const T = NOW - 2 * 86_400_000;
const A = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const B = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const C = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const D = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"; // no bars at all
const E = "3ne4mWqdYuNiYrYZC9TrA3FcfuFdErghH97vNPbjicr1";
const HEADER = "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n";

let ctx: TestContext;
let token: string;

function bars(tokenAddress: string, from: number, closes: string[]) {
  ctx.services.strategyLab.bars.recordTicks(closes.map((price, i) => ({ tokenAddress, time: from + i * MIN, price })));
}
const row = (at: number, tokenAddress: string, type: string, source: string) =>
  `,${new Date(at).toISOString()},${tokenAddress},X,${type},3,,${source}\r\n`;

beforeAll(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
  // A: gain first (1.6 ≥ 1.5 at minute 2), dip to 0.7, peak 2.0 at minute 4; a bar after 24 h is ignored.
  bars(A, T, ["1.0", "1.2", "1.6", "0.7", "2.0"]);
  bars(A, T + 25 * 60 * MIN, ["5"]);
  // B: loss first (0.74 ≤ 0.75 at minute 2), then 1.6 (too late), peak 1.6 at minute 3.
  bars(B, T, ["1.0", "0.9", "0.74", "1.6", "1.1"]);
  // C: the signal comes 30 s into T's minute: entry is the next bar (2.0), the 5 before it is not seen.
  bars(C, T, ["5", "2.0", "2.2", "1.8"]);
  // E: a signal an hour ago, neither threshold reached yet: pending.
  bars(E, NOW - 60 * MIN, ["1.0", "1.2"]);
  const csv =
    HEADER +
    row(T, A, "buy", "alpha") +
    row(T, B, "buy", "alpha") +
    row(T + 30_000, C, "buy", "alpha") +
    row(T, D, "buy", "alpha") +
    row(T + MIN, A, "sell", "alpha") +
    row(NOW - 60 * MIN, E, "buy", "beta");
  const res = await ctx.request("POST", "/api/v1/trading-signals/import", {
    token,
    rawBody: csv,
    headers: { "content-type": "text/csv" },
  });
  expect(res.status).toBe(201);
});
afterAll(() => ctx.close());

const report = async (query = "", tok = token) => {
  const res = await ctx.request("GET", `/api/v1/signal-sources/report${query}`, { token: tok });
  return { status: res.status, body: await json(res) };
};

describe("signal-source report", () => {
  test("per source and type, worked by hand", async () => {
    const { status, body } = await report();
    expect(status).toBe(200);
    expect(body).toMatchObject({ gainPercent: 50, lossPercent: 25, windowHours: 24, startDate: null, endDate: null });
    expect(body.sources).toEqual([
      {
        // A: gain, max +100 %, drawdown 30 %, peak after 4 min. B: loss, +60 %, 26 %, 3 min.
        // C: neither, +10 %, 10 %, 1 min. D: no data. Medians of (100, 60, 10), (30, 26, 10), (4, 3, 1).
        source: "alpha",
        signalType: "buy",
        count: 4,
        withData: 3,
        pending: 0,
        resolved: 3,
        reachedGain: 1,
        reachedLoss: 1,
        reachedGainShare: 0.3333,
        medianMaxGainPercent: 60,
        medianMaxDrawdownPercent: 26,
        medianMinutesToPeak: 3,
      },
      {
        // A from minute 1: entry 1.2; 1.6 is +33 % only, 0.7 is −41.67 % (loss); peak 2.0 = +66.67 % after 3 min.
        source: "alpha",
        signalType: "sell",
        count: 1,
        withData: 1,
        pending: 0,
        resolved: 1,
        reachedGain: 0,
        reachedLoss: 1,
        reachedGainShare: 0,
        medianMaxGainPercent: 66.6667,
        medianMaxDrawdownPercent: 41.6667,
        medianMinutesToPeak: 3,
      },
      {
        source: "beta",
        signalType: "buy",
        count: 1,
        withData: 1,
        pending: 1,
        resolved: 0,
        reachedGain: 0,
        reachedLoss: 0,
        reachedGainShare: null,
        medianMaxGainPercent: null,
        medianMaxDrawdownPercent: null,
        medianMinutesToPeak: null,
      },
    ]);
  });

  test("thresholds, window and dates come from the query", async () => {
    // +10 % / −5 % within 3 minutes: A gains at 1.2, B loses at 0.9, C gains at 2.2; the sell on
    // A (entry 1.2) gains at 1.6.
    const { body } = await report("?gainPercent=10&lossPercent=5&windowHours=0.05&endDate=2025-12-31T00:00:00Z");
    expect(body.sources.map((s: any) => [s.signalType, s.reachedGain, s.reachedLoss, s.reachedGainShare])).toEqual([
      ["buy", 2, 1, 0.6667],
      ["sell", 1, 0, 1],
    ]);
    expect(body.endDate).toBe("2025-12-31T00:00:00.000Z");
  });

  test("another user's signals never count; their report is their own", async () => {
    const other = await createUser(ctx);
    const theirs = `${HEADER}${row(T, A, "buy", "alpha")}`;
    const res = await ctx.request("POST", "/api/v1/trading-signals/import", {
      token: other.token,
      rawBody: theirs,
      headers: { "content-type": "text/csv" },
    });
    expect(res.status).toBe(201);
    expect((await report("", other.token)).body.sources).toEqual([
      expect.objectContaining({ source: "alpha", signalType: "buy", count: 1, reachedGain: 1 }),
    ]);
    expect((await report()).body.sources[0].count).toBe(4);
  });

  test.each([
    ["?lossPercent=100", "lossPercent must be above 0 and at most 99.99"],
    ["?gainPercent=abc", "gainPercent must be a number"],
    ["?windowHours=0", "windowHours must be above 0 and at most 8760"],
    ["?startDate=yesterday", "startDate must be an ISO 8601 date"],
  ])("%s is a 400", async (q, error) => {
    const { status, body } = await report(q);
    expect(status).toBe(400);
    expect(body.error).toBe(error);
  });

  test("no credential is 401", async () => {
    expect((await ctx.request("GET", "/api/v1/signal-sources/report")).status).toBe(401);
  });
});

test("median and one signal's outcome as plain functions", () => {
  expect(median([])).toBeNull();
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  const path = {
    times: [0, MIN, 2 * MIN],
    closes: ["1", "1.5", "1"],
    closeNums: Float64Array.from([1, 1.5, 1]),
    decimals: 6,
  };
  const q = { gainPercent: 50, lossPercent: 25, windowHours: 1 };
  expect(signalOutcome(path, 0, q, 10 * 3_600_000)).toEqual({
    status: "gain",
    maxGainPercent: 50,
    maxDrawdownPercent: 0,
    minutesToPeak: 1,
  });
  // The first bar is after the window: no data.
  expect(signalOutcome(path, -2 * 3_600_000, q, 10 * 3_600_000).status).toBe("no_data");
});
