import { describe, expect, test } from "bun:test";
import type { Quote, QuoteRequest } from "../../src/market/types.ts";
import { deriveQuote, SignalQuoteBook } from "../../src/trading/signal-quotes.ts";

// docs/decisions.md "Performance": the price-impact model of shared simulation quotes.
// The provider here is a pool whose impact grows with size (constant product): a derived fill is
// never better than the pool's own quote for that size.

const SOL = "So11111111111111111111111111111111111111112";
const TOKEN = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

/** x·y = k pool: 1,000 SOL against 10,000,000 tokens (atomic: 9 and 6 decimals). */
function poolQuote(req: QuoteRequest): Quote {
  const x = 1000n * 10n ** 9n;
  const y = 10_000_000n * 10n ** 6n;
  const dx = BigInt(req.amount);
  const out = (y * dx) / (x + dx);
  const spot = (y * dx) / x;
  const impact = Number(spot - out) / Number(spot);
  return {
    inputMint: req.inputMint,
    outputMint: req.outputMint,
    inAmount: req.amount,
    outAmount: out.toString(),
    otherAmountThreshold: ((out * BigInt(10_000 - req.slippageBps)) / 10_000n).toString(),
    swapMode: "ExactIn",
    slippageBps: req.slippageBps,
    priceImpactPct: String(impact),
    routeLabels: ["Pool"],
    contextSlot: 1,
    raw: {},
  };
}

const req = (sol: number): QuoteRequest => ({
  inputMint: SOL,
  outputMint: TOKEN,
  amount: String(BigInt(Math.round(sol * 1e9))),
  slippageBps: 300,
});

describe("deriveQuote", () => {
  test("is never better than the real quote for the smaller size, and keeps the measured impact", () => {
    const large = poolQuote(req(10));
    for (const sol of [0.01, 0.5, 1, 5, 9.99, 10]) {
      const derived = deriveQuote(large, BigInt(req(sol).amount));
      const real = poolQuote(req(sol));
      expect(BigInt(derived.outAmount) <= BigInt(real.outAmount)).toBe(true);
      expect(Number(derived.priceImpactPct)).toBeGreaterThanOrEqual(Number(real.priceImpactPct));
      expect(derived.routeLabels).toEqual(large.routeLabels);
    }
  });

  test("never from a smaller quote", () => {
    expect(() => deriveQuote(poolQuote(req(1)), BigInt(req(2).amount))).toThrow();
  });
});

describe("SignalQuoteBook", () => {
  test("requests of one turn share one quote at the largest amount", async () => {
    const book = new SignalQuoteBook();
    const asked: string[] = [];
    const fetch = async (r: QuoteRequest) => {
      asked.push(r.amount);
      return poolQuote(r);
    };
    const fills = await Promise.all([1, 3, 2].map((sol) => book.quote(req(sol), fetch, 10_000)));
    expect(asked).toEqual([req(3).amount]);
    expect(fills.map((f) => f.inAmount)).toEqual([req(1).amount, req(3).amount, req(2).amount]);
    // A later smaller request is derived too; a later larger one asks at its own size.
    await book.quote(req(0.5), fetch, 10_000);
    await book.quote(req(4), fetch, 10_000);
    expect(asked).toEqual([req(3).amount, req(4).amount]);
  });

  test("an agent whose slippage limit the larger size's impact exceeds gets a quote at its own size", async () => {
    const book = new SignalQuoteBook();
    const asked: string[] = [];
    const fetch = async (r: QuoteRequest) => {
      asked.push(r.amount);
      return poolQuote(r);
    };
    // 50 SOL into 1,000 SOL of depth is about 4.8 % impact; 0.1 SOL about 0.01 %.
    const [small, big] = await Promise.all([book.quote(req(0.1), fetch, 100), book.quote(req(50), fetch, 10_000)]);
    expect(asked).toEqual([req(50).amount, req(0.1).amount]);
    expect(small.outAmount).toBe(poolQuote(req(0.1)).outAmount);
    expect(big.outAmount).toBe(poolQuote(req(50)).outAmount);
  });

  test("a failed quote fails its waiters and is asked again later", async () => {
    const book = new SignalQuoteBook();
    let fail = true;
    const fetch = async (r: QuoteRequest) => {
      if (fail) throw new Error("provider down");
      return poolQuote(r);
    };
    const results = await Promise.allSettled([book.quote(req(1), fetch, 10_000), book.quote(req(1), fetch, 10_000)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect((await book.quote(req(1), fetch, 10_000)).inAmount).toBe(req(1).amount);
  });
});
