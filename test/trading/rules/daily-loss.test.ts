import { describe, expect, test } from "bun:test";
import { Big } from "../../../src/money.ts";
import { dailyLossOver, dailyLossSol, type OpenPositionMark } from "../../../src/trading/rules/index.ts";

// Issue 34 item 1: the breaker's daily loss, as a table (positive = a loss).
const open = (o: Partial<OpenPositionMark>): OpenPositionMark => ({
  realizedProfitSol: "0",
  remainingAmount: "1000",
  heldCostSol: "0.1",
  entryPriceSol: "0.0001",
  lastPriceSol: null,
  ...o,
});

describe("dailyLossSol", () => {
  const cases: [string, string[], OpenPositionMark[], string][] = [
    ["nothing traded", [], [], "0"],
    ["closed losses add up", ["-0.2", "-0.05"], [], "0.25"],
    ["a closed gain offsets a loss", ["-0.2", "0.5"], [], "-0.3"],
    ["an open position at its entry price, fees in the held cost", [], [open({ heldCostSol: "0.100055" })], "0.000055"],
    ["an open position marked at half its entry price", [], [open({ lastPriceSol: "0.00005" })], "0.05"],
    [
      "an open position that sold a take-profit level",
      [],
      [open({ realizedProfitSol: "0.02", remainingAmount: "500", heldCostSol: "0.05", lastPriceSol: "0.00008" })],
      "-0.01",
    ],
    ["closed and open together", ["-0.1"], [open({ lastPriceSol: "0.00002" })], "0.18"],
  ];
  test.each(cases)("%s", (_name, closed, openRows, expected) => {
    expect(dailyLossSol(closed, openRows).eq(new Big(expected))).toBe(true);
  });
});

describe("dailyLossOver", () => {
  const cases: [string | null, string, boolean][] = [
    [null, "1000", false],
    ["1", "1", false],
    ["1", "1.000000001", true],
    ["1", "-3", false],
    ["0.5", "0.6", true],
  ];
  test.each(cases)("limit %p, loss %p: over %p", (limit, loss, over) => {
    expect(dailyLossOver(limit, loss)).toBe(over);
  });
});
