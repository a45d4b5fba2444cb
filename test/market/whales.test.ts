import { expect, test } from "bun:test";
import { ServiceNotConfiguredError, toErrorBody } from "../../src/errors.ts";
import { SOL_MINT } from "../../src/money.ts";
import { startFakeMarket } from "../fakes/market.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { marketHarness, rejection } from "./helpers.ts";

// Birdeye txs-by-volume (PRODUCT.md §5, signalGeneration): only with a key; otherwise the whale
// endpoints answer 503 SERVICE_NOT_CONFIGURED naming WHALE_DATA_API_KEY.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

const fake = await fakeMarketPerFile(() => {
  fake.setSolPrice("150", { push: false });
  fake.setToken(BONK, { symbol: "BONK", decimals: 5 });
  fake.setWhaleTrades(BONK, [
    {
      txHash: "tx-old",
      blockUnixTime: 1_767_225_000,
      volumeUsd: 25_000,
      tokenAmount: 5_000_000,
      priceUsd: 0.005,
      owner: "WhaleA",
    },
    {
      txHash: "tx-new",
      blockUnixTime: 1_767_225_600,
      volumeUsd: 60_000,
      tokenAmount: 12_000_000,
      owner: "WhaleB",
      source: "orca",
    },
    { txHash: "tx-small", blockUnixTime: 1_767_225_300, volumeUsd: 900, tokenAmount: 200_000 },
    { txHash: "tx-sell", blockUnixTime: 1_767_225_400, volumeUsd: 80_000, side: "sell" },
  ]);
});

test("latest whale buys of a token, newest first, with Birdeye's headers and parameters", async () => {
  const h = marketHarness(fake);
  expect(h.market.whales.configured).toBe(true);
  h.market.whales.assertConfigured();
  const trades = await h.market.whales.getTrades(BONK, { minVolumeUsd: 10_000, limit: 20 });
  expect(trades).toEqual([
    {
      txHash: "tx-new",
      blockTime: "2026-01-01T00:00:00.000Z",
      tokenAddress: BONK,
      side: "buy",
      volumeUsd: 60_000,
      owner: "WhaleB",
      source: "orca",
      tokenAmount: 12_000_000,
      priceUsd: 0.005,
    },
    {
      txHash: "tx-old",
      blockTime: "2025-12-31T23:50:00.000Z",
      tokenAddress: BONK,
      side: "buy",
      volumeUsd: 25_000,
      owner: "WhaleA",
      source: "raydium",
      tokenAmount: 5_000_000,
      priceUsd: 0.005,
    },
  ]);
  const r = fake.requestsTo("birdeye.txs")[0]!;
  expect(r.headers["x-api-key"]).toBe("fake-birdeye-key");
  expect(r.headers["x-chain"]).toBe("solana");
  expect(Object.fromEntries(r.query)).toEqual({
    token_address: BONK,
    volume_type: "usd",
    min_volume: "10000",
    tx_type: "buy",
    sort_by: "block_unix_time",
    sort_type: "desc",
    offset: "0",
    limit: "20",
  });
});

test("without WHALE_DATA_API_KEY: 503 SERVICE_NOT_CONFIGURED naming the variable, nothing sent", async () => {
  const h = marketHarness(fake, { WHALE_DATA_API_KEY: "" });
  expect(h.market.whales.configured).toBe(false);
  let thrown: unknown;
  try {
    h.market.whales.assertConfigured();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ServiceNotConfiguredError);
  expect(toErrorBody(thrown, { development: false })).toEqual({
    status: 503,
    body: {
      success: false,
      error: "Whale trade data is not configured: set WHALE_DATA_API_KEY",
      code: "SERVICE_NOT_CONFIGURED",
    },
  });
  const err = await rejection(h.market.whales.getTrades(BONK));
  expect(err.message).toBe("Whale trade data is not configured: set WHALE_DATA_API_KEY");
  expect(fake.requests).toHaveLength(0);
});

test("a key but no URL names WHALE_DATA_URL", async () => {
  const h = marketHarness(fake, { WHALE_DATA_URL: "" });
  expect(() => h.market.whales.assertConfigured()).toThrow("Whale trade data is not configured: set WHALE_DATA_URL");
});

test("a key Birdeye refuses is a 502 naming signalGeneration", async () => {
  const strict = await startFakeMarket({ keys: { whaleData: "the-real-key" } });
  try {
    const h = marketHarness(strict, { WHALE_DATA_API_KEY: "wrong-key" });
    const err = await rejection(h.market.whales.getTrades(SOL_MINT));
    expect(toErrorBody(err, { development: false }).body).toEqual({
      success: false,
      error: "signalGeneration returned HTTP 401: Unauthorized",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "signalGeneration", statusCode: 401 },
    });
  } finally {
    await strict.stop();
  }
});

test("{success:false} with 200 and items without hash or time are handled", async () => {
  const h = marketHarness(fake);
  fake.inject("birdeye.txs", { status: 200, body: { success: false, message: "Compute units exhausted" } });
  const err = await rejection(h.market.whales.getTrades(BONK));
  expect(err.message).toBe("signalGeneration refused the request: Compute units exhausted");
  fake.inject("birdeye.txs", {
    status: 200,
    body: {
      success: true,
      data: { items: [{ tx_hash: null }, { block_unix_time: 5 }, { tx_hash: "ok", block_unix_time: 1 }] },
    },
  });
  const trades = await h.market.whales.getTrades(BONK);
  expect(trades.map((t) => t.txHash)).toEqual(["ok"]);
  expect(trades[0]).toMatchObject({ volumeUsd: null, owner: null, tokenAmount: null, priceUsd: null });
});

test("limit outside 1..500 is refused before any request", async () => {
  const h = marketHarness(fake);
  const err = await rejection(h.market.whales.getTrades(BONK, { limit: 501 }));
  expect(err.message).toBe("limit must be a whole number from 1 to 500");
  expect(fake.requests).toHaveLength(0);
});
