import { afterEach, beforeEach, expect, test } from "bun:test";
import { FakeGeckoTerminal } from "../fakes/geckoterminal.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";

// History import over GeckoTerminal's wire format (issue 17): the token's SOL pool, then
// 1-minute OHLCV pages walked backwards with before_timestamp (1000 bars a page), stored as
// imported bars; a recorded bar is never overwritten.

const TOKEN = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const POOL = "3ne4mWqdYuNiYrYZC9TrA3FcfuFdErghH97vNPbjicr1";
const T0 = Date.parse("2025-06-01T00:00:00.000Z");

let gecko: FakeGeckoTerminal;
let ctx: TestContext;
beforeEach(async () => {
  gecko = await new FakeGeckoTerminal().start();
  ctx = await createTestContext(gecko.contextOptions());
});
afterEach(async () => {
  await ctx.close();
  await gecko.stop();
});

test("imports 2,500 minutes in three pages, oldest first, SOL prices as decimal text", async () => {
  const bars = Array.from({ length: 2500 }, (_, i) => {
    const p = (0.0001 + i * 1e-8).toFixed(8);
    return { time: T0 + i * 60_000, open: p, high: p, low: p, close: p };
  });
  gecko.setHistory(TOKEN, POOL, bars);
  const lab = ctx.services.strategyLab;
  lab.bars.recordTicks([{ tokenAddress: TOKEN, time: T0, price: "0.5" }]);
  const stored = await lab.history.importRange({ tokenAddress: TOKEN, fromMs: T0, toMs: T0 + 2500 * 60_000 });
  expect(stored).toBe(2499); // the recorded minute is kept
  const got = lab.bars.range(TOKEN, T0, T0 + 2500 * 60_000);
  expect(got).toHaveLength(2500);
  expect(got[0]!.close).toBe("0.5");
  expect(got[1]).toEqual({
    time: T0 + 60_000,
    open: "0.00010001",
    high: "0.00010001",
    low: "0.00010001",
    close: "0.00010001",
  });
  const ohlcv = gecko.requests.filter((u) => u.pathname.includes("/ohlcv/"));
  expect(gecko.requests[0]!.pathname).toBe(`/api/v2/networks/solana/tokens/${TOKEN}/pools`);
  expect(ohlcv.map((u) => Number(u.searchParams.get("before_timestamp")) * 1000)).toEqual([
    T0 + 2500 * 60_000,
    T0 + 1500 * 60_000,
    T0 + 500 * 60_000,
  ]);
  expect(ohlcv[0]!.searchParams.get("currency")).toBe("token");
  expect(ohlcv[0]!.searchParams.get("token")).toBe("base");
});

test("a token without a SOL pool imports nothing", async () => {
  expect(
    await ctx.services.strategyLab.history.importRange({ tokenAddress: TOKEN, fromMs: T0, toMs: T0 + 60_000 }),
  ).toBe(0);
});
