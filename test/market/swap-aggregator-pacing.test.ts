import { expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { DEFAULT_LIMITS, swapAggregatorLimit } from "../../src/market/index.ts";
import { SOL_MINT } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness } from "./helpers.ts";

// SWAP_AGGREGATOR_REQUESTS_PER_MINUTE (README configuration): replaces the tier's published
// Jupiter limit for every Jupiter call; unset or empty keeps the tier default.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

const fake = await fakeMarketPerFile(() => {
  fake.setToken(BONK, { symbol: "BONK", priceUsd: "0.0042", decimals: 6 });
});

test("unset or empty: the tier's limit; set: 60 000 / N ms between requests", () => {
  const cfg = (env: Record<string, string>) => loadConfig({ DATABASE_PATH: ":memory:", ...env });
  expect(swapAggregatorLimit(cfg({}))).toEqual(DEFAULT_LIMITS.jupiterKeyless);
  expect(swapAggregatorLimit(cfg({ SWAP_AGGREGATOR_API_KEY: "k" }))).toEqual(DEFAULT_LIMITS.jupiterKeyed);
  expect(swapAggregatorLimit(cfg({ SWAP_AGGREGATOR_API_KEY: "k", SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "" }))).toEqual(
    DEFAULT_LIMITS.jupiterKeyed,
  );
  expect(swapAggregatorLimit(cfg({ SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "600" }))).toEqual({ intervalMs: 100 });
  expect(
    swapAggregatorLimit(cfg({ SWAP_AGGREGATOR_API_KEY: "k", SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "6000000" })),
  ).toEqual({ intervalMs: 0.01 });
});

test("invalid values name the variable", () => {
  for (const [value, problem] of [
    ["0", "SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: must be at least 1"],
    ["1.5", "SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: must be a whole number"],
    ["fast", "SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: must be a whole number"],
  ] as const) {
    expect(() => loadConfig({ SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: value })).toThrow(problem);
  }
});

test("the configured pace applies to quotes and prices together", async () => {
  const timer = new ManualClock();
  // limits: {} drops the fake's "no pacing" so the configuration decides.
  const h = marketHarness(fake, { SWAP_AGGREGATOR_REQUESTS_PER_MINUTE: "120" }, { timer, limits: {} });
  try {
    await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "1000000", slippageBps: 300 });
    await h.market.quotes.quote({ inputMint: SOL_MINT, outputMint: BONK, amount: "2000000", slippageBps: 300 });
    await h.market.tokenPrices.getPrices([BONK]);
    // Three requests on one limiter: the second and third wait 500 ms each.
    expect(timer.sleeps).toEqual([500, 500]);
  } finally {
    await h.stop();
  }
});
