import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { json, login } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// The price recorder (issue 17 item 1), its tick driven directly: every token with a signal in
// the last PRICE_HISTORY_DAYS (here 1) is priced in ONE batched call a tick and folded into its
// minute's bar (USD ÷ SOL/USD); once an hour, bars outside every signal's horizon are pruned.

const NOW = Date.parse("2026-01-01T00:00:00.000Z"); // ManualClock's start
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const OLD = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"; // signalled 2 days ago: outside the horizon
const ORPHAN = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"; // no signal at all
const HEADER = "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n";

let t: TradingContext;
beforeEach(async () => {
  t = await startTrading({ env: { PRICE_HISTORY_DAYS: "1" } });
  t.fake.setToken(OLD, { priceUsd: "1", decimals: 6 });
});
afterEach(() => t.close());

async function importSignals(rows: Array<[number, string]>) {
  const csv = HEADER + rows.map(([at, token]) => `,${new Date(at).toISOString()},${token},X,buy,3,,s\r\n`).join("");
  const res = await t.ctx.request("POST", "/api/v1/trading-signals/import", {
    token: t.token,
    rawBody: csv,
    headers: { "content-type": "text/csv" },
  });
  expect(res.status, await res.clone().text()).toBe(201);
}
const lab = () => t.ctx.services.strategyLab;

describe("price recorder tick", () => {
  test("one batched price call per tick; ticks of a minute fold into one OHLC bar in SOL", async () => {
    await importSignals([
      [NOW - 10 * MIN, MINT],
      [NOW - 5 * MIN, MINT2],
      [NOW - 2 * DAY, OLD],
    ]);
    const priceCalls = () => t.fake.requestsTo("jupiter.price").length;
    const before = priceCalls();
    // SOL at $100: USD 0.01 → 0.0001 SOL. Four ticks in the minute [NOW, NOW+1m), one in the next.
    const usd = ["0.01", "0.012", "0.008", "0.009"];
    for (const [i, p] of usd.entries()) {
      t.ctx.clock.set(NOW + i * 15_000);
      t.fake.setToken(MINT, { priceUsd: p });
      expect(await lab().recorder.tick()).toBe(2);
    }
    t.ctx.clock.set(NOW + MIN);
    t.fake.setToken(MINT, { priceUsd: "0.02" });
    expect(await lab().recorder.tick()).toBe(2);

    const calls = t.fake.requestsTo("jupiter.price").slice(before);
    expect(calls).toHaveLength(5);
    for (const c of calls) expect(c.query.get("ids")!.split(",").sort()).toEqual([MINT, MINT2].sort());

    expect(lab().bars.range(MINT, NOW, NOW + 2 * MIN)).toEqual([
      { time: NOW, open: "0.0001", high: "0.00012", low: "0.00008", close: "0.00009" },
      { time: NOW + MIN, open: "0.0002", high: "0.0002", low: "0.0002", close: "0.0002" },
    ]);
    expect(
      lab()
        .bars.range(MINT2, NOW, NOW + 2 * MIN)
        .map((b) => b.close),
    ).toEqual(["0.02", "0.02"]);
    expect(lab().bars.count(OLD, 0, NOW + DAY)).toBe(0);
  });

  test("prices unavailable: the tick records nothing and says why; nothing signalled: no call", async () => {
    expect(await lab().recorder.tick()).toBe(0);
    expect(t.fake.requestsTo("jupiter.price")).toHaveLength(0);
    await importSignals([[NOW - MIN, MINT]]);
    t.fake.inject("jupiter.price", { status: 500, body: { error: "down" } }, { status: 500 }, { status: 500 });
    expect(await lab().recorder.tick()).toBe(0);
    expect(lab().bars.count(MINT, 0, NOW + DAY)).toBe(0);
    expect(t.ctx.logs.some((l) => l.includes("price history tick skipped: prices unavailable"))).toBe(true);
  });
});

describe("pruning", () => {
  test("keeps bars from a signal's minute to PRICE_HISTORY_DAYS after it, prunes the rest hourly", async () => {
    const S = NOW - 3 * DAY; // an imported old signal: its (imported) bars are kept for its horizon
    await importSignals([[S + 30_000, MINT]]);
    const bar = (time: number) => ({ time, open: "1", high: "1", low: "1", close: "1" });
    lab().bars.importBars(MINT, [S - MIN, S, S + 23 * HOUR, S + DAY - MIN, S + DAY + MIN].map(bar));
    lab().bars.recordTicks([{ tokenAddress: ORPHAN, time: NOW - HOUR, price: "1" }]);

    await lab().recorder.tick(); // the first tick prunes
    // S − 1 min is before the signal; S + 1 day + 1 min is past its horizon; the orphan has no signal.
    expect(
      lab()
        .bars.range(MINT, 0, NOW)
        .map((b) => b.time),
    ).toEqual([S, S + 23 * HOUR, S + DAY - MIN]);
    expect(lab().bars.count(ORPHAN, 0, NOW + DAY)).toBe(0);

    // Not again within the hour; at the hour, yes.
    lab().bars.recordTicks([{ tokenAddress: ORPHAN, time: NOW, price: "1" }]);
    t.ctx.clock.set(NOW + 30 * MIN);
    await lab().recorder.tick();
    expect(lab().bars.count(ORPHAN, 0, NOW + DAY)).toBe(1);
    t.ctx.clock.set(NOW + HOUR);
    await lab().recorder.tick();
    expect(lab().bars.count(ORPHAN, 0, NOW + DAY)).toBe(0);
    // The API serves what is left (a fresh login: the clock moved past the first token's life).
    const served = await json(
      await t.ctx.request(
        "GET",
        `/api/v1/tokens/${MINT}/prices?startDate=${new Date(S - HOUR).toISOString()}&endDate=${new Date(S + 2 * DAY).toISOString()}`,
        {
          token: (await login(t.ctx)).token,
        },
      ),
    );
    expect(served.map((b: any) => b.time)).toEqual([
      new Date(S).toISOString(),
      new Date(S + 23 * HOUR).toISOString(),
      new Date(S + DAY - MIN).toISOString(),
    ]);
  });
});
