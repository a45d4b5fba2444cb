// Exit-signal classification, position sizing, slippage and simulation fees.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Big } from "../../../src/money.ts";
import {
  checkSlippage,
  isExitSignal,
  type PositionSizingSettings,
  positionSizeSol,
  resolveSlippageBps,
  SIMULATION_NETWORK_FEE_SOL,
  simulationSwapFeeSol,
} from "../../../src/trading/rules/index.ts";

describe("isExitSignal", () => {
  test.each([
    ["sell", true],
    ["SELL", true],
    ["Exit", true],
    ["cLoSe", true],
    ["buy", false],
    ["BUY", false],
    ["long", false],
    ["", false],
    [" sell", false],
    ["sell-all", false],
    ["closed", false],
  ])("%p → %p", (type, expected) => {
    expect(isExitSignal(type)).toBe(expected);
  });
});

describe("positionSizeSol", () => {
  const pct = (percentage: number | string): PositionSizingSettings => ({
    type: "percentage",
    percentage,
    fixedAmountSol: null,
  });
  const fixed = (fixedAmountSol: number | string | null): PositionSizingSettings => ({
    type: "fixed",
    percentage: 5,
    fixedAmountSol,
  });
  test.each<[string, PositionSizingSettings, string, string]>([
    ["5% of 10", pct(5), "10", "0.5"],
    ["5% of 0.1 (exact, no float error)", pct(5), "0.1", "0.005"],
    ["33% of 1 rounds to lamports", pct(33), "1", "0.33"],
    ["1/3 % of 1 rounds down to lamports", pct("0.333333333333"), "1", "0.003333333"],
    ["7% of 0.000000019 rounds down to 1 lamport", pct(7), "0.000000019", "0.000000001"],
    ["100% of balance", pct(100), "2.5", "2.5"],
    ["percentage of zero balance", pct(5), "0", "0"],
    ["fixed ignores the balance", fixed(0.25), "100", "0.25"],
    ["fixed rounds down to lamports", fixed("0.1234567899"), "100", "0.123456789"],
    ["fixed may exceed the balance (eligibility refuses)", fixed(3), "1", "3"],
    ["fixed without amount sizes 0", fixed(null), "10", "0"],
  ])("%s", (_name, sizing, balance, expected) => {
    expect(positionSizeSol(sizing, balance).toFixed()).toBe(expected);
  });

  test("property: a percentage size never exceeds the balance and is whole lamports", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 1, max: 10000 }), (lamports, centiPct) => {
        const balance = new Big(lamports.toString()).div(1e9);
        const size = positionSizeSol(pct(new Big(centiPct).div(100).toFixed()), balance);
        expect(size.lte(balance)).toBe(true);
        expect(size.times(1e9).mod(1).eq(0)).toBe(true);
      }),
    );
  });
});

describe("slippage", () => {
  const settings = { defaultBps: 300, maxBps: 1000 };
  test.each([
    [300, { ok: true, bps: 300 }],
    [1000, { ok: true, bps: 1000 }], // exactly the maximum is allowed
    [0, { ok: true, bps: 0 }],
    [1001, { ok: false, message: "Slippage exceeds maximum allowed", details: { requested: 1001, maximum: 1000 } }],
  ])("checkSlippage(%p)", (bps, expected) => {
    expect(checkSlippage(bps, settings)).toEqual(expected as never);
  });

  test.each([
    [undefined, 300],
    [null, 300],
    [50, 50],
    [0, 0],
  ])("resolveSlippageBps(%p) = %p", (requested, expected) => {
    expect(resolveSlippageBps(requested, settings)).toBe(expected);
  });
});

describe("simulationSwapFeeSol", () => {
  test.each([
    [0.0001, "0.000105"],
    ["0", "0.000005"],
    [0, "0.000005"],
    ["0.001", "0.001005"],
    [1e-7, "0.0000051"],
  ])("priority %p → %p", (priority, expected) => {
    expect(simulationSwapFeeSol(priority).toFixed()).toBe(expected);
  });
  test("the network fee is 5000 lamports", () => {
    expect(new Big(SIMULATION_NETWORK_FEE_SOL).times(1e9).toFixed()).toBe("5000");
  });
});
