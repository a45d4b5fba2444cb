import { resolveConfig } from "../src/agents/trading-config.ts";
import { alignSignals, replayVariant } from "../src/backtest/replay.ts";
import type { ReplaySignal, TokenPath } from "../src/backtest/types.ts";
import type { BenchOptions } from "./lib/context.ts";
import { type BenchRow, row } from "./lib/stats.ts";

// 7. Backtest (the strategy lab's replay): 10,000 signals × 10 variants over 1-minute bars, replayed in-process
// through replayVariant (the rules in exact decimals at every bar where one may fire). Data: 1,000
// tokens, each with 3 days of 1-minute bars from a seeded random walk (4.3 million bars), 10
// signals per token spread over its first day. Variants sweep stop-loss, take-profit, DCA and
// stale-trade settings. Baseline: one pass of plain float code over the same bars per signal and
// variant (each signal's bars from its entry until its token's data ends, a running peak and a
// fixed-percentage trailing stop): the floor of touching the data a replay must look at.

const TOKENS = 1000;
const SIGNALS_PER_TOKEN = 10;
const DAYS = 3;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function backtestData(tokens: number, days: number) {
  const rand = seeded(42);
  const bars = days * 1440;
  const paths = new Map<string, TokenPath>();
  const signals: ReplaySignal[] = [];
  let id = 0;
  for (let t = 0; t < tokens; t++) {
    const mint = `Bench${String(t).padStart(38, "0")}`;
    const times: number[] = new Array(bars);
    const closes: string[] = new Array(bars);
    const nums = new Float64Array(bars);
    let p = 0.0001 * (1 + rand());
    for (let i = 0; i < bars; i++) {
      p *= 1 + (rand() - 0.5) * 0.02;
      times[i] = T0 + i * 60_000;
      closes[i] = p.toPrecision(8);
      nums[i] = Number(closes[i]);
    }
    paths.set(mint, { times, closes, closeNums: nums, decimals: 6 });
    for (let k = 0; k < SIGNALS_PER_TOKEN; k++)
      signals.push({
        id: ++id,
        tokenAddress: mint,
        signalType: "buy",
        signalStrength: 1 + Math.floor(rand() * 5),
        apiKeyId: null,
        apiKeyName: null,
        source: "bench",
        timeMs: T0 + Math.floor(rand() * 1440) * 60_000,
      });
  }
  signals.sort((a, b) => a.timeMs - b.timeMs || a.id - b.id);
  return { paths, signals };
}

export const BENCH_VARIANTS = [
  {},
  { stopLoss: { percentage: 10 } },
  { stopLoss: { percentage: 40 } },
  { takeProfit: { enabled: true, percentage: 20, sellPercentage: 50, maxLevels: 3 } },
  { takeProfit: { enabled: true, percentage: 50, sellPercentage: 100, maxLevels: 1 } },
  { dca: { enabled: true, maxOrders: 3, priceDropTriggerPercentage: 5, amountPercentage: 50 } },
  { filters: { maxPositionAgeDays: 0.5 } },
  { positionSizing: { type: "fixed", fixedAmountSol: 0.05 }, minimumAgentBalance: 0.05 },
  { filters: { minSignalStrength: 3 }, stopLoss: { percentage: 15 } },
  {
    stopLoss: { percentage: 20 },
    takeProfit: { enabled: true, percentage: 30, sellPercentage: 50, maxLevels: 2 },
    dca: { enabled: true, maxOrders: 1, priceDropTriggerPercentage: 10, amountPercentage: 50 },
  },
].map((o) => resolveConfig(o));

export async function backtestBench(o: BenchOptions): Promise<BenchRow[]> {
  const tokens = o.quick ? 100 : TOKENS;
  const { paths, signals } = backtestData(tokens, DAYS);
  o.log(`backtest: ${signals.length} signals, ${tokens * DAYS * 1440} bars, ${BENCH_VARIANTS.length} variants`);

  let t = performance.now();
  const aligned = alignSignals(signals, paths);
  let trades = 0;
  for (const config of BENCH_VARIANTS)
    trades += replayVariant({ config, initialSol: "10", signals, paths, priorityFeeSol: 0.0001 }, aligned).trades
      .length;
  const ours = performance.now() - t;

  t = performance.now();
  let sink = 0;
  for (let v = 0; v < BENCH_VARIANTS.length; v++) {
    const keep = 1 - (10 + v * 4) / 100;
    for (const e of aligned.events) {
      const nums = e.path.closeNums;
      let peak = nums[e.index]!;
      for (let i = e.index + 1; i < nums.length; i++) {
        const p = nums[i]!;
        if (p > peak) peak = p;
        else if (p <= peak * keep) {
          sink += i;
          break;
        }
      }
    }
  }
  const baseline = performance.now() - t;
  o.log(`backtest: ${trades} trades in ${ours.toFixed(0)} ms; float floor ${baseline.toFixed(0)} ms (${sink})`);
  return [
    row({
      id: "backtest.replay",
      name: `Backtest: ${signals.length.toLocaleString("en")} signals × ${BENCH_VARIANTS.length} variants, 1-minute bars (wall)`,
      unit: "ms",
      value: ours,
      baselineName: "plain float scan of the same bars per signal and variant",
      baselineValue: baseline,
      target: "< 10 s",
      check: (_q, value) => value < 10_000,
    }),
  ];
}
