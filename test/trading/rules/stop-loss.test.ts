import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import { evaluateStopLoss, nextPeak, stopLossPrice } from "../../../src/trading/rules/index.ts";

const on = (percentage: number | string) => ({ enabled: true, percentage });

describe("nextPeak", () => {
  test.each([
    ["1", "1.5", "1.5"],
    ["1.5", "1", "1.5"],
    ["1", "1", "1"],
    ["0.000001", "0.0000010000001", "0.0000010000001"],
  ])("peak %s, price %s → %s", (peak, price, expected) => {
    expect(nextPeak(peak, price).toFixed()).toBe(expected);
  });
});

describe("evaluateStopLoss", () => {
  test.each<
    [string, { enabled: boolean; percentage: number | string }, string, string, boolean, string | null, string]
  >([
    // name, settings, persisted peak, price, triggered, stop price, new peak
    ["above the stop price", on(25), "2", "1.5000001", false, "1.5", "2"],
    ["exactly at the stop price triggers", on(25), "2", "1.5", true, "1.5", "2"],
    ["below the stop price", on(25), "2", "1.4", true, "1.5", "2"],
    ["new peak raises the stop; price at the peak does not trigger", on(25), "2", "3", false, "2.25", "3"],
    ["exact decimals: 10% below 0.3", on(10), "0.3", "0.27", true, "0.27", "0.3"],
    ["just above 10% below 0.3", on(10), "0.3", "0.270000000000000001", false, "0.27", "0.3"],
    ["fractional percentage", on("12.5"), "8", "7", true, "7", "8"],
    ["100% stops only at zero", on(100), "1", "0.000000001", false, "0", "1"],
    ["100% at zero", on(100), "1", "0", true, "0", "1"],
    [
      "disabled never triggers but still raises the peak",
      { enabled: false, percentage: 25 },
      "1",
      "5",
      false,
      null,
      "5",
    ],
    ["disabled never triggers", { enabled: false, percentage: 25 }, "2", "0.1", false, null, "2"],
  ])("%s", (_name, settings, peak, price, triggered, stop, newPeak) => {
    const d = evaluateStopLoss(settings, peak, price);
    expect(d.triggered).toBe(triggered);
    expect(d.stopPriceSol === null ? null : d.stopPriceSol.toFixed()).toBe(stop);
    expect(d.peakPriceSol.toFixed()).toBe(newPeak);
  });

  test("after a new peak the stop follows it (trailing)", () => {
    // Entry 1, stop 20%: the price rises to 2, then falls to 1.6 (= 2 × 0.8) and triggers,
    // although 1.6 is far above the entry's stop (0.8).
    let peak = new Big(1);
    for (const price of ["1.2", "2", "1.7"]) {
      const d = evaluateStopLoss(on(20), peak, price);
      expect(d.triggered).toBe(false);
      peak = d.peakPriceSol;
    }
    expect(evaluateStopLoss(on(20), peak, "1.6")).toMatchObject({ triggered: true });
  });

  test("property: the stop price is monotone in the peak and never above it", () => {
    const decimal = fc.bigInt({ min: 1n, max: 10n ** 18n }).map((n) => new Big(n.toString()).div(1e9));
    fc.assert(
      fc.property(decimal, decimal, fc.integer({ min: 1, max: 100 }), (a, b, pct) => {
        const [lo, hi] = a.lte(b) ? [a, b] : [b, a];
        expect(stopLossPrice(lo, pct).lte(stopLossPrice(hi, pct))).toBe(true);
        expect(stopLossPrice(hi, pct).lte(hi)).toBe(true);
      }),
    );
  });

  test("property: triggered exactly when price ≤ stop price of the updated peak", () => {
    const decimal = fc.bigInt({ min: 0n, max: 10n ** 12n }).map((n) => new Big(n.toString()).div(1e6));
    fc.assert(
      fc.property(decimal, decimal, fc.integer({ min: 1, max: 100 }), (peak, price, pct) => {
        const d = evaluateStopLoss(on(pct), peak, price);
        const p = price.gt(peak) ? price : peak;
        expect(d.triggered).toBe(price.lte(p.times(100 - pct).div(100)));
      }),
    );
  });
});
