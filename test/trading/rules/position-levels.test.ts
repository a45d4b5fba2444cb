import { describe, expect, test } from "bun:test";
import {
  evaluateDca,
  evaluateStopLoss,
  evaluateTakeProfit,
  type LevelsInput,
  positionLevels,
} from "../../../src/trading/rules/index.ts";

// The levels the dashboard draws (positions table, position page) are where the rules fire.

const config = (over: { sl?: boolean; tp?: boolean; dca?: boolean; maxOrders?: number; drop?: number } = {}) => ({
  stopLoss: { enabled: over.sl ?? true, percentage: 20 },
  takeProfit: { enabled: over.tp ?? true, percentage: 50, sellPercentage: 50, maxLevels: 3 },
  dca: {
    enabled: over.dca ?? true,
    maxOrders: over.maxOrders ?? 2,
    priceDropTriggerPercentage: over.drop ?? 10,
    amountPercentage: 50,
  },
});
const pos = (over: Partial<LevelsInput> = {}): LevelsInput => ({
  entryPriceSol: "0.001",
  peakPriceSol: "0.0015",
  levelsHit: 0,
  dcaOrders: 0,
  moonBagActivated: false,
  ...over,
});
const text = (l: ReturnType<typeof positionLevels>) => ({
  stop: l.stopLossPrice?.toFixed() ?? null,
  tp: l.takeProfit.map((x) => `${x.level}:${x.price.toFixed()}${x.hit ? " hit" : ""}`),
  dca: l.dca.map((x) => `${x.order}:${x.price.toFixed()}`),
});

describe("positionLevels", () => {
  test.each([
    [
      "every rule on",
      config(),
      pos(),
      { stop: "0.0012", tp: ["1:0.0015", "2:0.002", "3:0.0025"], dca: ["1:0.0009", "2:0.0008"] },
    ],
    [
      "levels hit and orders filled",
      config(),
      pos({ levelsHit: 2, dcaOrders: 1 }),
      { stop: "0.0012", tp: ["1:0.0015 hit", "2:0.002 hit", "3:0.0025"], dca: ["2:0.0008"] },
    ],
    ["rules off", config({ sl: false, tp: false, dca: false }), pos(), { stop: null, tp: [], dca: [] }],
    [
      "no DCA once the moon bag is active",
      config(),
      pos({ levelsHit: 3, moonBagActivated: true }),
      { stop: "0.0012", tp: ["1:0.0015 hit", "2:0.002 hit", "3:0.0025 hit"], dca: [] },
    ],
    [
      "a DCA trigger at or below 0 is never listed",
      config({ maxOrders: 5, drop: 40 }),
      pos(),
      { stop: "0.0012", tp: ["1:0.0015", "2:0.002", "3:0.0025"], dca: ["1:0.0006", "2:0.0002"] },
    ],
  ])("%s", (_name, c, p, expected) => {
    expect(text(positionLevels(c, p))).toEqual(expected);
  });

  test("each level is where its rule fires: at the price it fires, a hair above (below) it does not", () => {
    const c = config();
    const p = pos();
    const l = positionLevels(c, p);
    const stop = l.stopLossPrice!;
    expect(evaluateStopLoss(c.stopLoss, p.peakPriceSol, stop).triggered).toBe(true);
    expect(evaluateStopLoss(c.stopLoss, p.peakPriceSol, stop.plus("1e-12")).triggered).toBe(false);
    const tp = { ...p, remainingAmount: "1000", tokenDecimals: 6 };
    const next = l.takeProfit[0]!.price;
    expect(evaluateTakeProfit(c.takeProfit, tp, next).triggered).toBe(true);
    expect(evaluateTakeProfit(c.takeProfit, tp, next.minus("1e-12")).triggered).toBe(false);
    const dca = { ...p, originalCostSol: "1" };
    const order = l.dca[0]!.price;
    expect(evaluateDca(c.dca, dca, order).triggered).toBe(true);
    expect(evaluateDca(c.dca, dca, order.plus("1e-12")).triggered).toBe(false);
  });
});
