import { expect, test } from "bun:test";
import { SOL_MINT } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness, rejection } from "./helpers.ts";

// DexScreener tokens v1 (PRODUCT.md §5, marketData): batches of at most 30, the most liquid
// Solana pair per token, null-safe everywhere.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const MEME = "Meme111111111111111111111111111111111111111";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

const fake = await fakeMarketPerFile(() => {
  fake.setSolPrice("150", { push: false });
  fake.setToken(BONK, {
    symbol: "BONK",
    name: "Bonk",
    priceUsd: "0.0042",
    decimals: 5,
    liquidityUsd: 2_500_000,
    marketCapUsd: 310_000_000,
    fdvUsd: 330_000_000,
    pairs: undefined,
  });
});

const pair = (o: Record<string, unknown>) => ({
  chainId: "solana",
  dexId: "raydium",
  pairAddress: "P",
  baseToken: { address: MEME, name: "Meme", symbol: "MEME" },
  quoteToken: { address: SOL_MINT, name: "Wrapped SOL", symbol: "SOL" },
  priceNative: "0.0001",
  priceUsd: "0.015",
  liquidity: { usd: 1_000, base: 1, quote: 1 },
  fdv: 2_000_000,
  marketCap: 1_500_000,
  ...o,
});

test("a token's symbol, prices, market cap and liquidity", async () => {
  const h = marketHarness(fake);
  const data = await h.market.marketData.getTokens([BONK]);
  expect(data.get(BONK)).toEqual({
    mint: BONK,
    symbol: "BONK",
    name: "Bonk",
    priceUsd: "0.0042",
    priceNative: "0.000028",
    marketCapUsd: 310_000_000,
    fdvUsd: 330_000_000,
    liquidityUsd: 2_500_000,
    volume24hUsd: 50_000,
    pairAddress: fake.tokens.get(BONK)!.pairAddress,
    dexId: "raydium",
    quoteSymbol: "SOL",
  });
  expect(fake.requestsTo("dexscreener.tokens")[0]!.path).toBe(`/tokens/v1/solana/${BONK}`);
});

test("the most liquid Solana pair where the token is the base wins", async () => {
  fake.setToken(MEME, {
    pairs: [
      pair({ chainId: "ethereum", pairAddress: "EthPair", liquidity: { usd: 99_000_000 } }),
      pair({ pairAddress: "Small", liquidity: { usd: 1_000 } }),
      pair({ pairAddress: "Deep", dexId: "orca", priceUsd: "0.016", liquidity: { usd: 50_000 } }),
      // MEME on the quote side of a deeper pool: its prices are the other token's.
      pair({
        pairAddress: "QuoteSide",
        baseToken: { address: USDC, symbol: "USDC" },
        quoteToken: { address: MEME, symbol: "MEME" },
        liquidity: { usd: 9_000_000 },
      }),
    ],
  });
  const h = marketHarness(fake);
  const m = (await h.market.marketData.getTokens([MEME])).get(MEME)!;
  expect(m.pairAddress).toBe("Deep");
  expect(m.dexId).toBe("orca");
  expect(m.priceUsd).toBe("0.016");
  expect(m.liquidityUsd).toBe(50_000);
});

test("null-safe: nulls, missing objects and wrong types read as unknown; fdv stands in for market cap", async () => {
  fake.setToken(MEME, {
    pairs: [
      {
        chainId: "solana",
        baseToken: { address: MEME },
        priceUsd: null,
        priceNative: 12,
        liquidity: null,
        fdv: "7000",
        marketCap: null,
        volume: "lots",
      },
    ],
  });
  const h = marketHarness(fake);
  expect((await h.market.marketData.getTokens([MEME])).get(MEME)).toEqual({
    mint: MEME,
    symbol: null,
    name: null,
    priceUsd: null,
    priceNative: "12",
    marketCapUsd: 7000,
    fdvUsd: 7000,
    liquidityUsd: null,
    volume24hUsd: null,
    pairAddress: null,
    dexId: null,
    quoteSymbol: null,
  });
});

test("a token only on the quote side: symbol and pool liquidity, no price or market cap", async () => {
  fake.setToken(MEME, {
    pairs: [
      pair({
        baseToken: { address: USDC, symbol: "USDC" },
        quoteToken: { address: MEME, symbol: "MEME", name: "Meme" },
        liquidity: { usd: 8_000 },
      }),
    ],
  });
  const h = marketHarness(fake);
  const m = (await h.market.marketData.getTokens([MEME])).get(MEME)!;
  expect(m).toMatchObject({
    symbol: "MEME",
    priceUsd: null,
    priceNative: null,
    marketCapUsd: null,
    liquidityUsd: 8_000,
    quoteSymbol: "USDC",
  });
});

test("unknown tokens are absent", async () => {
  const h = marketHarness(fake);
  const data = await h.market.marketData.getTokens([BONK, "Unlisted1111111111111111111111111111111111"]);
  expect([...data.keys()]).toEqual([BONK]);
});

test("batches are split at 30 addresses", async () => {
  const mints = Array.from({ length: 65 }, (_, i) => `Tok${String(i).padStart(3, "0")}`.padEnd(44, "z"));
  for (const m of mints) fake.setToken(m, { pairs: undefined, listed: true });
  const h = marketHarness(fake);
  const data = await h.market.marketData.getTokens(mints);
  expect(data.size).toBe(65);
  const sizes = fake.requestsTo("dexscreener.tokens").map((r) => r.path.split("/").at(-1)!.split(",").length);
  expect(sizes.sort((a, b) => b - a)).toEqual([30, 30, 5]);
});

test("cached for a short while", async () => {
  const h = marketHarness(fake, {}, { marketDataCacheTtlMs: 15_000 });
  await h.market.marketData.getTokens([BONK]);
  await h.market.marketData.getTokens([BONK]);
  expect(fake.requestsTo("dexscreener.tokens")).toHaveLength(1);
  h.clock.advance(15_001);
  await h.market.marketData.getTokens([BONK]);
  expect(fake.requestsTo("dexscreener.tokens")).toHaveLength(2);
});

test("malformed JSON and a non-array answer are 502s naming marketData", async () => {
  const h = marketHarness(fake);
  fake.inject("dexscreener.tokens", { status: 200, raw: "[{" }, { status: 200, body: { pairs: [] } });
  const a = await rejection(h.market.marketData.getTokens([BONK]));
  expect(a.message).toBe("marketData returned malformed JSON");
  expect(a.details).toEqual({ service: "marketData", statusCode: 200 });
  const b = await rejection(h.market.marketData.getTokens([BONK]));
  expect(b.message).toBe("marketData returned an unexpected response: expected an array of pairs");
});

test("switched off: 503 naming MARKET_DATA_URL", async () => {
  const h = marketHarness(fake, { MARKET_DATA_URL: "" });
  const err = await rejection(h.market.marketData.getTokens([BONK]));
  expect(err.status).toBe(503);
  expect(err.message).toBe("Market data is not configured: set MARKET_DATA_URL");
  expect(fake.requests).toHaveLength(0);
});
