import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../src/agents/trading-config.ts";
import { replayVariant } from "../../src/backtest/replay.ts";
import type { ReplaySignal, TokenPath } from "../../src/backtest/types.ts";
import type { ImpactTable } from "../../src/price-impact.ts";

// Hand-built price paths (SOL per token, one bar a minute) and the effect of each rule on the
// backtest trade, worked out by hand. Every swap pays 0.000005 network + 0.0001 priority = 0.000105 SOL.

const T0 = Date.parse("2026-01-05T10:00:00.000Z");
const MIN = 60_000;
const A = "TokenA1111111111111111111111111111111111111";
const B = "TokenB1111111111111111111111111111111111111";

function path(prices: string[], decimals = 6): TokenPath {
  return {
    times: prices.map((_, i) => T0 + i * MIN),
    closes: prices,
    closeNums: Float64Array.from(prices.map(Number)),
    decimals,
  };
}

const signal = (id: number, token: string, minute: number, extra: Partial<ReplaySignal> = {}): ReplaySignal => ({
  id,
  tokenAddress: token,
  signalType: "buy",
  signalStrength: 4,
  timeMs: T0 + minute * MIN,
  apiKeyId: "key-1",
  apiKeyName: "bot",
  source: null,
  ...extra,
});

/** The pools of these paths move nothing: a recorded impact of 0 (the figures are the rules' alone). */
const NO_IMPACT: ImpactTable = {
  byToken: new Map([A, B].map((t) => [t, [{ sizeBucket: 0, impactPct: "0" }]])),
  byBucket: new Map(),
};

function run(
  overrides: Record<string, unknown>,
  prices: Record<string, string[]>,
  signals: ReplaySignal[],
  impacts: ImpactTable | undefined = NO_IMPACT,
) {
  return replayVariant({
    config: resolveConfig(overrides),
    initialSol: "10",
    signals,
    paths: new Map(Object.entries(prices).map(([k, v]) => [k, path(v)])),
    priorityFeeSol: 0.0001,
    impacts,
  });
}

const fixed1 = { positionSizing: { type: "fixed", fixedAmountSol: 1 } };

describe("backtest replay: each rule's effect on a trade", () => {
  test("trailing stop-loss: closes at peak × 75 % with fees on both swaps", () => {
    // 1 SOL at 0.001 → 1000 tokens, cost 1.000105 (fees 0.000105; the token account's rent
    // 0.00203928 is paid beside it, as the engine records it). Peak 0.002; 0.0015 = 0.002 × 0.75
    // triggers. Sale 1000 × 0.0015 = 1.5, net of the swap's fees and the account close's 0.000005
    // 1.49989; P/L 1.49989 − 1.000105 = 0.499785 = 49.9732 % of the cost. The account's close
    // returns the rent to the balance: 10 − 1.000105 − 0.00203928 + 1.49989 + 0.00203928 =
    // 10.499785 = 10 + the P/L.
    const r = run(fixed1, { [A]: ["0.001", "0.002", "0.0016", "0.0015", "0.003"] }, [signal(1, A, 0)]);
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({
      entryPriceSol: "0.001",
      exitPriceSol: "0.0015",
      amount: "1000",
      costSol: "1.000105",
      profitLossSol: "0.499785",
      changePercent: "49.9732",
      closeReason: "stop_loss",
      closedAtMs: T0 + 3 * MIN,
    });
    expect(r.summary).toMatchObject({ trades: 1, wins: 1, losses: 0, winRate: 1, profitLossSol: "0.499785" });
    expect(r.summary.returnPercent).toBe(4.9978); // of the trades' P/L (4.99785 %), rounded to 4 decimals
    expect(r.equity.at(-1)!.valueSol).toBe("10.499785");
  });

  test("take-profit levels, moon bag, then stale-trade", () => {
    // Level 1 at 0.0015 sells 500 (0.75), level 2 at 0.002 sells 250 (0.5) and leaves a 250-token
    // moon bag; 0.003 does nothing more; at minute 4 the age 240 s exceeds 0.0025 days (216 s):
    // stale close of 250 at 0.0025 = 0.625. Net 0.75 + 0.5 + 0.625 − 3 × 0.000105 − 0.000005 (the
    // account close's fee) = 1.87468, P/L 1.87468 − 1.000105 = 0.874575 (the rent and its refund
    // go to the balance, not the P/L) = 87.4483 % of the cost.
    const r = run(
      {
        ...fixed1,
        stopLoss: { enabled: false },
        takeProfit: { enabled: true, percentage: 50, sellPercentage: 50, maxLevels: 2 },
        filters: { maxPositionAgeDays: 0.0025 },
      },
      { [A]: ["0.001", "0.0015", "0.002", "0.003", "0.0025", "0.0025"] },
      [signal(1, A, 0)],
    );
    expect(r.trades[0]).toMatchObject({
      profitLossSol: "0.874575",
      changePercent: "87.4483",
      closeReason: "stale_trade",
      takeProfitLevels: 2,
      exitPriceSol: "0.0025",
      closedAtMs: T0 + 4 * MIN,
    });
  });

  test("DCA re-averages the entry, then the stop-loss closes everything", () => {
    // 0.0009 = 0.001 × (1 − 10 %) buys 50 % of the 1 SOL opening size: 0.5 / 0.0009 = 555.555555
    // tokens (6 decimals, rounded down). Average entry 1.5 / 1555.555555, cost 1.50021 (rent
    // apart). 0.0007 ≤ peak 0.001 × 0.75: sells 1555.555555 × 0.0007 = 1.088888888 (lamports,
    // down), net of fees and the account close's 1.088778888, P/L 1.088778888 − 1.50021 =
    // −0.411431112 = −27.4249 %.
    const r = run(
      { ...fixed1, dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 } },
      { [A]: ["0.001", "0.0009", "0.00095", "0.0007"] },
      [signal(1, A, 0)],
    );
    expect(r.trades[0]).toMatchObject({
      dcaOrders: 1,
      entryPriceSol: "0.000964285714630102",
      amount: "1555.555555",
      costSol: "1.50021",
      profitLossSol: "-0.411431112",
      changePercent: "-27.4249",
      closeReason: "stop_loss",
    });
    expect(r.summary).toMatchObject({ wins: 0, losses: 1, profitFactor: 0 });
  });

  test("sizing from the balance left, eligibility refusals, exit signal, end of data", () => {
    // Default sizing 5 %: signal 1 spends 0.5 (+ fee); signal 2 on the same token is refused
    // (open_position); signal 3 (strength 2 < minSignalStrength 3) is refused;
    // signal 4 on B is sized from 10 − 0.500105 − 0.00203928 (token account rent) = 9.49785572
    // → 0.474892786 SOL.
    const r = run(
      { filters: { minSignalStrength: 3 } },
      { [A]: ["0.001", "0.001", "0.001", "0.0012", "0.0012"], [B]: ["0.5", "0.5", "0.5", "0.5", "0.6"] },
      [
        signal(1, A, 0),
        signal(2, A, 1),
        signal(3, B, 1, { signalStrength: 2 }),
        signal(4, B, 2),
        signal(5, A, 3, { signalType: "SELL" }),
      ],
    );
    expect(r.summary.skipped).toEqual({ open_position: 1, signal_strength: 1 });
    const [a, b] = r.trades;
    expect(a).toMatchObject({ signalId: 1, costSol: "0.500105", closeReason: "signal", exitPriceSol: "0.0012" });
    // 0.5 / 0.001 = 500 tokens; 500 × 0.0012 = 0.6; P/L 0.6 − 0.00011 − 0.500105 = 0.099785.
    expect(a!.profitLossSol).toBe("0.099785");
    // 0.474892786 / 0.5 → 0.949785 tokens (6 decimals, down), closed at the last bar:
    // 0.949785 × 0.6 = 0.569871; P/L 0.569871 − 0.00011 − 0.474997786 = 0.094763214.
    expect(b).toMatchObject({ signalId: 4, costSol: "0.474997786", amount: "0.949785", closeReason: "end_of_data" });
    expect(b!.profitLossSol).toBe("0.094763214");
  });
});

describe("backtest replay: filters.sources (issue 41 item 5)", () => {
  test("a variant trades only its sources; an exit of another source leaves the position open", () => {
    // Imported signals carry no key: their source text is their source. Signal 2 (another
    // channel) is refused with rule source; signal 3, that channel's sell, does not close the
    // position signal 1 opened; signal 4, the opener's own sell, does.
    const r = run(
      { ...fixed1, filters: { sources: ["alpha-calls"] } },
      { [A]: ["0.001", "0.001", "0.001", "0.0012", "0.0012"], [B]: ["0.5", "0.5", "0.5", "0.5", "0.5"] },
      [
        signal(1, A, 0, { apiKeyId: null, apiKeyName: null, source: "alpha-calls" }),
        signal(2, B, 1, { apiKeyId: null, apiKeyName: null, source: "beta-calls" }),
        signal(3, A, 2, { apiKeyId: null, apiKeyName: null, source: "beta-calls", signalType: "sell" }),
        signal(4, A, 3, { apiKeyId: null, apiKeyName: null, source: "alpha-calls", signalType: "sell" }),
      ],
    );
    expect(r.summary.skipped).toEqual({ source: 1 });
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ signalId: 1, closeReason: "signal", closedAtMs: T0 + 3 * MIN });
  });
});

describe("backtest replay: price impact (issue 24)", () => {
  const prices = { [A]: ["0.001", "0.002", "0.0016", "0.0015", "0.003"] };

  test("the recorded impact of the token's size bucket reduces each fill's output, as the quote does", () => {
    // 2 % recorded for A at 1 SOL (bucket 5: above 0.5, up to 1 SOL): 1 SOL buys 1000 × 0.98 = 980
    // tokens; the sale of 980 at 0.0015 (1.47 SOL, bucket 6) takes the nearest bucket's 2 %:
    // 1.47 × 0.98 = 1.4406.
    const impacts: ImpactTable = {
      byToken: new Map([[A, [{ sizeBucket: 5, impactPct: "0.02" }]]]),
      byBucket: new Map(),
    };
    const r = run(fixed1, prices, [signal(1, A, 0)], impacts);
    expect(r.trades[0]).toMatchObject({ amount: "980", closeReason: "stop_loss" });
    // P/L: 1.4406 − 0.00011 − 1.000105 (the token account's rent is apart from the P/L, the
    // close's fee is not).
    expect(r.trades[0]!.profitLossSol).toBe("0.440385");
  });

  test("nothing recorded for the token: the bucket's mean over other tokens, else the 1 % default, never 0", () => {
    const other: ImpactTable = { byToken: new Map(), byBucket: new Map([[5, "0.05"]]) };
    expect(run(fixed1, prices, [signal(1, A, 0)], other).trades[0]).toMatchObject({ amount: "950" });
    const none: ImpactTable = { byToken: new Map(), byBucket: new Map() };
    expect(run(fixed1, prices, [signal(1, A, 0)], none).trades[0]).toMatchObject({ amount: "990" });
  });
});
