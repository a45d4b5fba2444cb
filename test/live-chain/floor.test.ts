import { describe, expect, test } from "bun:test";
import { Big } from "../../src/money.ts";
import { expectedOutputAtomic, floorOf, judgeQuote } from "../../src/trading/live/floor.ts";
import { SLIPPAGE_EXCEEDED_MESSAGE } from "../../src/trading/rules/slippage.ts";

// Our own floor (src/trading/live/floor.ts), as plain functions: the expected output at an
// independent price, the floor below it, and a quote judged against both. The service-level
// cases (a tampered aggregator on litesvm) are in own-numbers.test.ts.

const ref = { priceSol: new Big("0.001"), source: "price_api" as const };
const buy = {
  side: "BUY" as const,
  amountAtomic: 100_000_000n, // 0.1 SOL
  tokenDecimals: 6,
  slippageBps: 300,
  floorBps: 300,
  maxImpactBps: 1_000,
};
const quote = (outAmount: string, extra: Record<string, unknown> = {}) => ({
  inAmount: "100000000",
  outAmount,
  otherAmountThreshold: "1",
  slippageBps: 300,
  priceImpactPct: "0",
  ...extra,
});

describe("the floor formula", () => {
  test("expected output at the reference price, both ways, and the floor below it", () => {
    expect(expectedOutputAtomic(buy, ref.priceSol)).toBe(100_000_000n); // 100 tokens
    expect(expectedOutputAtomic({ side: "SELL", amountAtomic: 100_000_000n, tokenDecimals: 6 }, ref.priceSol)).toBe(
      100_000_000n, // 0.1 SOL
    );
    expect(floorOf(100_000_000n, 300)).toBe(97_000_000n);
  });

  test("the aggregator's threshold only ever tightens the floor", () => {
    expect(judgeQuote(buy, quote("100000000"), ref).minOutAtomic).toBe(97_000_000n);
    expect(judgeQuote(buy, quote("100000000", { otherAmountThreshold: "99000000" }), ref).minOutAtomic).toBe(
      99_000_000n,
    );
  });

  test("a sale's own price floor binds the quote and the post-state, above our floor and the threshold", () => {
    const sale = { ...buy, priceFloorAtomic: 99_500_000n };
    expect(() => judgeQuote(sale, quote("99499999"), ref)).toThrow("below the sale's price floor");
    expect(judgeQuote(sale, quote("100000000"), ref).minOutAtomic).toBe(99_500_000n);
    expect(judgeQuote(sale, quote("100000000", { otherAmountThreshold: "99900000" }), ref).minOutAtomic).toBe(
      99_900_000n,
    );
  });

  test("a quote reporting priceImpactPct 0 is judged by our own price: 5% short of it exceeds a 1% cap", () => {
    const loose = { ...buy, floorBps: 2_000, maxImpactBps: 100 };
    expect(() => judgeQuote(loose, quote("95000000"), ref)).toThrow(SLIPPAGE_EXCEEDED_MESSAGE);
    expect(judgeQuote(loose, quote("99500000"), ref).floorAtomic).toBe(80_000_000n);
    // No cap (an exit that must get out): the floor alone decides.
    expect(judgeQuote({ ...loose, maxImpactBps: null }, quote("95000000"), ref).floorAtomic).toBe(80_000_000n);
  });

  test("another amount, another slippage, or an outAmount under the floor is refused", () => {
    expect(() => judgeQuote(buy, quote("100000000", { inAmount: "1" }), ref)).toThrow("another amount");
    expect(() => judgeQuote(buy, quote("100000000", { slippageBps: 301 }), ref)).toThrow("slippage differs");
    expect(() => judgeQuote(buy, quote("96999999"), ref)).toThrow(
      "The quote's price of 0.00103092 SOL per token is worse than 0.001 SOL per token from the Price API by more than 300 bps",
    );
  });
});
