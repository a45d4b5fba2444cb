import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import {
  evaluateTakeProfit,
  type TakeProfitPositionState,
  type TakeProfitSettings,
  takeProfitLevelPrice,
} from "../../../src/trading/rules/index.ts";

const tp = (over: Partial<TakeProfitSettings> = {}): TakeProfitSettings => ({
  enabled: true,
  percentage: 50,
  sellPercentage: 50,
  maxLevels: 3,
  ...over,
});
const pos = (over: Partial<TakeProfitPositionState> = {}): TakeProfitPositionState => ({
  entryPriceSol: "0.001",
  remainingAmount: "1000",
  levelsHit: 0,
  moonBagActivated: false,
  tokenDecimals: 6,
  ...over,
});

describe("takeProfitLevelPrice", () => {
  test.each([
    ["0.001", 50, 1, "0.0015"],
    ["0.001", 50, 2, "0.002"],
    ["0.001", 50, 3, "0.0025"],
    ["0.3", 10, 1, "0.33"],
    ["0.3", "12.5", 2, "0.375"],
  ])("entry %s, %p%%, level %p → %s", (entry, pct, level, expected) => {
    expect(takeProfitLevelPrice(entry, pct, level).toFixed()).toBe(expected);
  });
});

type Expected = null | {
  level: number;
  sell: string;
  after: string;
  moonBag: boolean;
  moonBagAmount: string | null;
  closes: boolean;
};

describe("evaluateTakeProfit", () => {
  test.each<[string, TakeProfitSettings, TakeProfitPositionState, string, Expected]>([
    ["below level 1", tp(), pos(), "0.0014999", null],
    [
      "exactly at level 1 sells half the remainder",
      tp(),
      pos(),
      "0.0015",
      { level: 1, sell: "500", after: "500", moonBag: false, moonBagAmount: null, closes: false },
    ],
    [
      "level 2 sells half of what remains",
      tp(),
      pos({ levelsHit: 1, remainingAmount: "500" }),
      "0.002",
      { level: 2, sell: "250", after: "250", moonBag: false, moonBagAmount: null, closes: false },
    ],
    ["level 2 not reached although above level 1", tp(), pos({ levelsHit: 1, remainingAmount: "500" }), "0.0019", null],
    [
      "last level activates the moon bag",
      tp(),
      pos({ levelsHit: 2, remainingAmount: "250" }),
      "0.0025",
      { level: 3, sell: "125", after: "125", moonBag: true, moonBagAmount: "125", closes: false },
    ],
    [
      "no level after the moon bag",
      tp(),
      pos({ levelsHit: 3, remainingAmount: "125", moonBagActivated: true }),
      "1",
      null,
    ],
    ["no level beyond maxLevels", tp(), pos({ levelsHit: 3, remainingAmount: "125" }), "1", null],
    [
      "one level per tick: a jump past three levels sells only level 1",
      tp(),
      pos(),
      "0.01",
      { level: 1, sell: "500", after: "500", moonBag: false, moonBagAmount: null, closes: false },
    ],
    [
      "sale rounds down to the token's decimals",
      tp({ sellPercentage: 33 }),
      pos({ remainingAmount: "1.000001", tokenDecimals: 6 }),
      "0.0015",
      { level: 1, sell: "0.33", after: "0.670001", moonBag: false, moonBagAmount: null, closes: false },
    ],
    [
      "zero-decimal token rounds to whole tokens",
      tp({ sellPercentage: 50 }),
      pos({ remainingAmount: "7", tokenDecimals: 0 }),
      "0.0015",
      { level: 1, sell: "3", after: "4", moonBag: false, moonBagAmount: null, closes: false },
    ],
    ["a dust sale that rounds to zero does not fire", tp(), pos({ remainingAmount: "0.000001" }), "0.0015", null],
    [
      "sellPercentage 100 sells everything and closes (take_profit)",
      tp({ sellPercentage: 100 }),
      pos(),
      "0.0015",
      { level: 1, sell: "1000", after: "0", moonBag: false, moonBagAmount: null, closes: true },
    ],
    [
      "sellPercentage 100 at the last level closes instead of a moon bag",
      tp({ sellPercentage: 100, maxLevels: 1 }),
      pos(),
      "0.0015",
      { level: 1, sell: "1000", after: "0", moonBag: false, moonBagAmount: null, closes: true },
    ],
    [
      "maxLevels 1: the first sale leaves the moon bag",
      tp({ maxLevels: 1 }),
      pos(),
      "0.0015",
      { level: 1, sell: "500", after: "500", moonBag: true, moonBagAmount: "500", closes: false },
    ],
    ["disabled", tp({ enabled: false }), pos(), "1", null],
    ["maxLevels 0 never fires", tp({ maxLevels: 0 }), pos(), "1", null],
    ["nothing remains", tp(), pos({ remainingAmount: "0" }), "1", null],
  ])("%s", (_name, settings, position, price, expected) => {
    const d = evaluateTakeProfit(settings, position, price);
    if (expected === null) {
      expect(d).toEqual({ triggered: false });
      return;
    }
    if (!d.triggered) throw new Error("expected a take-profit sale");
    expect({
      level: d.level,
      levelsHit: d.levelsHit,
      sell: d.sellAmount.toFixed(),
      after: d.remainingAfter.toFixed(),
      moonBag: d.moonBagActivated,
      moonBagAmount: d.moonBagAmount === null ? null : d.moonBagAmount.toFixed(),
      closes: d.closesPosition,
    }).toEqual({ ...expected, levelsHit: expected.level });
    expect(d.levelPriceSol.toFixed()).toBe(
      takeProfitLevelPrice(position.entryPriceSol, settings.percentage, expected.level).toFixed(),
    );
  });

  test("a price that stays above every level walks the levels one per tick, then stops", () => {
    let state = pos();
    const sales: string[] = [];
    for (let tick = 0; tick < 6; tick++) {
      const d = evaluateTakeProfit(tp(), state, "1");
      if (!d.triggered) break;
      sales.push(d.sellAmount.toFixed());
      state = {
        ...state,
        levelsHit: d.levelsHit,
        remainingAmount: d.remainingAfter,
        moonBagActivated: d.moonBagActivated,
      };
    }
    expect(sales).toEqual(["500", "250", "125"]);
    expect(state).toMatchObject({ levelsHit: 3, moonBagActivated: true });
    expect(new Big(state.remainingAmount).toFixed()).toBe("125");
  });

  test("property: never sells more than remains; amounts stay whole atomic units; remainder = before − sale", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 10000 }),
        fc.integer({ min: 0, max: 5 }),
        (atomic, decimals, centiSell, levelsHit) => {
          const remaining = new Big(atomic.toString()).div(new Big(10).pow(decimals));
          const d = evaluateTakeProfit(
            tp({ sellPercentage: new Big(centiSell).div(100).toFixed(), maxLevels: 5 }),
            pos({ remainingAmount: remaining, tokenDecimals: decimals, levelsHit }),
            "1000000",
          );
          if (!d.triggered) return;
          expect(d.sellAmount.gt(0)).toBe(true);
          expect(d.sellAmount.lte(remaining)).toBe(true);
          expect(d.remainingAfter.plus(d.sellAmount).eq(remaining)).toBe(true);
          expect(d.sellAmount.times(new Big(10).pow(decimals)).mod(1).eq(0)).toBe(true);
          expect(d.closesPosition).toBe(d.remainingAfter.eq(0));
          if (d.moonBagActivated) expect(d.moonBagAmount!.eq(d.remainingAfter)).toBe(true);
        },
      ),
    );
  });
});
