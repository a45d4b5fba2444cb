import { expect, test } from "bun:test";
import { ServiceNotConfiguredError } from "../../src/errors.ts";
import { SOL_MINT } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness, rejection } from "./helpers.ts";

// Token prices through Jupiter Price v3 (PRODUCT.md §5, swapAggregator): batches of at most 50,
// a short cache, unpriced mints reported as unknown (absent), never as zero; decimals.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const WIF = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const UNKNOWN = "Unknown1111111111111111111111111111111111111";

const fake = await fakeMarketPerFile(() => {
  fake.setToken(BONK, { symbol: "BONK", priceUsd: "0.0000231", decimals: 5, liquidityUsd: 12_000_000 });
  fake.setToken(WIF, { symbol: "WIF", priceUsd: "1.87", decimals: 6 });
});

test("prices and decimals of known mints; the key header goes along", async () => {
  const h = marketHarness(fake, {}, { tokenPriceCacheTtlMs: 5_000 });
  const prices = await h.market.tokenPrices.getPrices([BONK, WIF, SOL_MINT]);
  expect(prices.get(BONK)).toEqual({
    mint: BONK,
    usd: "0.0000231",
    decimals: 5,
    priceChange24h: 1.29,
    liquidityUsd: 12_000_000,
    // When the service received it: the monitor does not decide on a price older than two ticks.
    observedAtMs: h.clock.now(),
  });
  expect(prices.get(WIF)?.usd).toBe("1.87");
  expect(prices.get(SOL_MINT)?.usd).toBe("150");
  const reqs = fake.requestsTo("jupiter.price");
  expect(reqs).toHaveLength(1);
  expect(reqs[0]!.query.get("ids")).toBe(`${BONK},${WIF},${SOL_MINT}`);
  expect(reqs[0]!.headers["x-api-key"]).toBe("fake-jupiter-key");
});

test("mints the API cannot price are absent, never zero", async () => {
  fake.setToken("NoPrice111111111111111111111111111111111111", { priceUsd: null });
  fake.setToken("ZeroPrice11111111111111111111111111111111111", { priceUsd: "0" });
  const h = marketHarness(fake);
  const prices = await h.market.tokenPrices.getPrices([
    BONK,
    UNKNOWN,
    "NoPrice111111111111111111111111111111111111",
    "ZeroPrice11111111111111111111111111111111111",
  ]);
  expect([...prices.keys()]).toEqual([BONK]);
  expect(prices.has(UNKNOWN)).toBe(false);
});

test("batches are split at 50 ids", async () => {
  const mints = Array.from({ length: 120 }, (_, i) => `Mint${String(i).padStart(3, "0")}`.padEnd(44, "x"));
  for (const m of mints) fake.setToken(m, { priceUsd: "2" });
  const h = marketHarness(fake);
  const prices = await h.market.tokenPrices.getPrices(mints);
  expect(prices.size).toBe(120);
  const sizes = fake.requestsTo("jupiter.price").map((r) => r.query.get("ids")!.split(",").length);
  expect(sizes.sort((a, b) => b - a)).toEqual([50, 50, 20]);
});

test("a short cache: hits and misses are reused until the TTL passes; duplicates asked once", async () => {
  const h = marketHarness(fake, {}, { tokenPriceCacheTtlMs: 5_000 });
  await h.market.tokenPrices.getPrices([BONK, UNKNOWN, BONK]);
  await h.market.tokenPrices.getPrices([BONK, UNKNOWN]);
  expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
  expect(fake.requestsTo("jupiter.price")[0]!.query.get("ids")).toBe(`${BONK},${UNKNOWN}`);
  fake.setToken(BONK, { priceUsd: "0.00003" });
  h.clock.advance(5_001);
  const again = await h.market.tokenPrices.getPrices([BONK]);
  expect(again.get(BONK)?.usd).toBe("0.00003");
  expect(fake.requestsTo("jupiter.price")).toHaveLength(2);
});

test("concurrent callers share one request", async () => {
  const h = marketHarness(fake, {}, { tokenPriceCacheTtlMs: 5_000 });
  const [a, b] = await Promise.all([
    h.market.tokenPrices.getPrices([BONK, WIF]),
    h.market.tokenPrices.getPrices([WIF, BONK]),
  ]);
  expect(a.get(WIF)?.usd).toBe("1.87");
  expect(b.get(BONK)?.usd).toBe("0.0000231");
  expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
});

test("failures are not cached and surface as a 502 naming swapAggregator", async () => {
  const h = marketHarness(fake, {}, { tokenPriceCacheTtlMs: 5_000 });
  fake.inject(
    "jupiter.price",
    { status: 500, body: {} },
    { status: 500, body: {} },
    { status: 500, body: { error: "Internal" } },
  );
  const err = await rejection(h.market.tokenPrices.getPrices([BONK]));
  expect(err.status).toBe(502);
  expect(err.message).toBe("swapAggregator returned HTTP 500: Internal");
  expect(err.details).toEqual({ service: "swapAggregator", statusCode: 500 });
  const ok = await h.market.tokenPrices.getPrices([BONK]);
  expect(ok.get(BONK)?.usd).toBe("0.0000231");
});

test("an answer that is not an object keyed by mint is a 502", async () => {
  const h = marketHarness(fake);
  fake.inject("jupiter.price", { status: 200, body: [1, 2, 3] });
  const err = await rejection(h.market.tokenPrices.getPrices([BONK]));
  expect(err.message).toBe("swapAggregator returned an unexpected response: expected an object keyed by mint");
});

test("decimals: from the price answer, then remembered; SOL is 9 without asking", async () => {
  const h = marketHarness(fake);
  expect(await h.market.decimals.getDecimals([SOL_MINT])).toEqual(new Map([[SOL_MINT, 9]]));
  expect(fake.requestsTo("jupiter.price")).toHaveLength(0);
  const d = await h.market.decimals.getDecimals([BONK, WIF, UNKNOWN]);
  expect(d).toEqual(
    new Map([
      [BONK, 5],
      [WIF, 6],
    ]),
  );
  await h.market.decimals.getDecimals([BONK, WIF]);
  expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
});

test("switched off (empty SWAP_AGGREGATOR_URL): 503 naming the variable, nothing sent", async () => {
  const h = marketHarness(fake, { SWAP_AGGREGATOR_URL: "" });
  expect(h.market.tokenPrices.configured).toBe(false);
  const err = await rejection(h.market.tokenPrices.getPrices([BONK]));
  expect(err).toBeInstanceOf(ServiceNotConfiguredError);
  expect(err.message).toBe("Swap aggregator is not configured: set SWAP_AGGREGATOR_URL");
  expect(fake.requests).toHaveLength(0);
});
