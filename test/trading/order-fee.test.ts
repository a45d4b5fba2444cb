import { describe, expect, test } from "bun:test";
import { TradingError } from "../../src/errors.ts";
import { orderFeeLamports, splitOrderFee } from "../../src/trading/live/order-outcome.ts";
import { judgeOrderSlippage } from "../../src/trading/live/order-swap.ts";

// Jupiter's /order fee moved from the price into `fees`, and the order's slippage judged against
// the agent's (docs/decisions.md "Live order path").

describe("Jupiter's order fee", () => {
  test("a buy's fee is its bps of the SOL that left; a sale's is its bps of the gross, shown net", () => {
    expect(orderFeeLamports("BUY", 100_000_000n, 50)).toBe(500_000n);
    // 99 500 000 gross, 497 500 of it the fee: 99 002 500 net.
    expect(orderFeeLamports("SELL", 99_002_500n, 50)).toBe(497_500n);
  });

  test("no fee, a nonsense fee or nothing to take it from: zero", () => {
    for (const bps of [null, 0, -5, 10_000]) expect(orderFeeLamports("BUY", 1_000n, bps)).toBe(0n);
    expect(orderFeeLamports("SELL", 0n, 50)).toBe(0n);
  });

  test("the split moves the fee without changing the wallet's total", () => {
    const buy = splitOrderFee("BUY", { inputAtomic: 100_000_000n, outputAtomic: 99n }, 50);
    expect(buy).toEqual({ inputAtomic: 99_500_000n, outputAtomic: 99n, orderFeeLamports: 500_000n });
    expect(buy.inputAtomic + buy.orderFeeLamports).toBe(100_000_000n);
    const sale = splitOrderFee("SELL", { inputAtomic: 99n, outputAtomic: 99_002_500n }, 50);
    expect(sale.outputAtomic - sale.orderFeeLamports).toBe(99_002_500n);
    expect(sale.outputAtomic).toBe(99_500_000n);
  });
});

describe("the order's slippage", () => {
  const quote = (slippageBps: number, threshold: string) => ({
    slippageBps,
    outAmount: "10000",
    otherAmountThreshold: threshold,
  });

  test("tighter than the agent's, or equal, is accepted", () => {
    expect(() => judgeOrderSlippage(300, quote(300, "9700"))).not.toThrow();
    expect(() => judgeOrderSlippage(300, quote(50, "9950"))).not.toThrow();
  });

  test("a wider slippage, or a threshold below the agent's, is refused", () => {
    expect(() => judgeOrderSlippage(300, quote(500, "9500"))).toThrow(TradingError);
    expect(() => judgeOrderSlippage(300, quote(300, "9699"))).toThrow("minimum output is below");
  });
});
