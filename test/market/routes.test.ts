import { afterEach, describe, expect, test } from "bun:test";
import { createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { until } from "./helpers.ts";

// GET /api/v1/price-feeds/sol-usd and GET /api/v1/data-sources/status through the real app
// (SPEC "Price, data-source, health endpoints"), against the fake market.

let ctx: TestContext | null = null;
const fake = await fakeMarketPerFile(() => {
  fake.streams.available = true;
  fake.setSolPrice("150", { push: false });
});
afterEach(async () => {
  await ctx?.close();
  ctx = null;
  fake.dropStreams();
});

const withFake = (env: Record<string, string> = {}, market: Record<string, unknown> = {}) => {
  const opts = fake.serviceOptions();
  return createTestContext({ env: fake.env(env), services: { market: { ...opts.market, ...market } } });
};

describe("GET /price-feeds/sol-usd", () => {
  test("the test default (every source off): 503 naming what to set, and nothing connects", async () => {
    ctx = await createTestContext();
    const { token } = await login(ctx);
    expect(ctx.services.market.solPrice.mode).toBe("off");
    const res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(res.status).toBe(503);
    expect(await json(res)).toEqual({
      success: false,
      error: "SOL price feed is not configured: set SOL_PRICE_FEED_URL, or PRICE_NETWORK_URL and PRICE_NETWORK_API_KEY",
      code: "SERVICE_NOT_CONFIGURED",
    });
  });

  test("before the stream starts, the sources are asked once (keyless: Jupiter)", async () => {
    ctx = await withFake({ PRICE_NETWORK_API_KEY: "" });
    const { token } = await login(ctx);
    fake.setSolPrice("187.4123", { push: false });
    const res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      price: "187.41230000",
      lastUpdated: new Date(ctx.clock.now()).toISOString(),
      isStale: false,
      source: "solPriceFeed",
      unavailableSince: null,
    });
  });

  test("from the stream once started; stale after 60 s without updates", async () => {
    ctx = await withFake();
    const { token } = await login(ctx);
    ctx.services.market.solPrice.start();
    await until(() => ctx!.services.market.solPrice.current()?.isStale === false, "stream price");
    let res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(await json(res)).toMatchObject({ price: "150.00000000", isStale: false, source: "priceNetwork" });
    const updated = ctx.clock.now();
    ctx.clock.advance(61_000);
    res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    // Issue 34: since when the price is stale (60 s after its last update).
    expect(await json(res)).toMatchObject({
      price: "150.00000000",
      isStale: true,
      source: "priceNetwork",
      unavailableSince: new Date(updated + 60_000).toISOString(),
    });
  });

  test("createServices never connects; the start hooks (serve) start the stream, stop() ends it", async () => {
    ctx = await withFake();
    expect(fake.requests).toHaveLength(0);
    await ctx.services.start();
    await until(() => fake.streams.openCount === 1, "stream opened by the start hook");
    await ctx.services.stop();
    await until(() => fake.streams.openCount === 0, "stream closed by stop()");
  });

  test("provider failure: 502 EXTERNAL_SERVICE_ERROR with {service, statusCode}", async () => {
    ctx = await withFake({ PRICE_NETWORK_API_KEY: "" });
    const { token } = await login(ctx);
    fake.inject(
      "jupiter.price",
      { status: 500, body: {} },
      { status: 500, body: {} },
      { status: 500, body: { error: "Internal error" } },
    );
    const res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(res.status).toBe(502);
    expect(await json(res)).toEqual({
      success: false,
      error: "solPriceFeed returned HTTP 500: Internal error",
      code: "EXTERNAL_SERVICE_ERROR",
      // Issue 34: since when no price could be had (the first failed poll).
      details: { service: "solPriceFeed", statusCode: 500, unavailableSince: new Date(ctx.clock.now()).toISOString() },
    });
  });

  test("Hermes and Jupiter both failing: the error names the first source", async () => {
    ctx = await withFake();
    const { token } = await login(ctx);
    fake.inject("hermes.latest", { status: 200, raw: "not json" });
    fake.inject("jupiter.price", { status: 200, raw: "{" });
    const res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(res.status).toBe(502);
    expect(await json(res)).toEqual({
      success: false,
      error: "priceNetwork returned malformed JSON",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "priceNetwork", statusCode: 200, unavailableSince: new Date(ctx.clock.now()).toISOString() },
    });
  });

  test("timeout: 502", async () => {
    ctx = await withFake({ PRICE_NETWORK_API_KEY: "" }, { timeoutMs: 50 });
    const { token } = await login(ctx);
    fake.inject("jupiter.price", { delayMs: 300 });
    const res = await ctx.request("GET", "/api/v1/price-feeds/sol-usd", { token });
    expect(res.status).toBe(502);
    expect(await json(res)).toEqual({
      success: false,
      error: "solPriceFeed did not answer within 50 ms",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "solPriceFeed", unavailableSince: new Date(ctx.clock.now()).toISOString() },
    });
  });
});

describe("GET /data-sources/status", () => {
  test("the test default: every source off", async () => {
    ctx = await createTestContext();
    const { token } = await login(ctx);
    const res = await ctx.request("GET", "/api/v1/data-sources/status", { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      priceNetwork: { configured: false, reachable: null },
      solPriceFeed: { configured: false, reachable: null },
      swapAggregator: { configured: false, reachable: null },
      marketData: { configured: false, reachable: null },
      liquidityChecks: { configured: false, reachable: null },
      signalGeneration: { configured: false, reachable: null },
      solanaRpc: { configured: false, reachable: null },
      solanaConfirmRpc: { configured: false, reachable: null },
      jitoBlockEngine: { configured: false, reachable: null },
    });
  });

  test("every source configured: booleans only, never a URL or a key", async () => {
    ctx = await withFake();
    const { token } = await login(ctx);
    const res = await ctx.request("GET", "/api/v1/data-sources/status", { token });
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      priceNetwork: { configured: true, reachable: null },
      solPriceFeed: { configured: true, reachable: null },
      swapAggregator: { configured: true, reachable: null },
      marketData: { configured: true, reachable: null },
      liquidityChecks: { configured: true, reachable: null },
      signalGeneration: { configured: true, reachable: null },
      solanaRpc: { configured: false, reachable: null },
      solanaConfirmRpc: { configured: false, reachable: null },
      jitoBlockEngine: { configured: false, reachable: null },
    });
    for (const secret of ["127.0.0.1", "fake-hermes-key", "fake-jupiter-key", "fake-birdeye-key"])
      expect(text).not.toContain(secret);
    expect(fake.requests).toHaveLength(0); // reporting configuration calls nobody
  });

  test("keys missing and LIQUIDITY_CHECKS=false", async () => {
    ctx = await withFake({ PRICE_NETWORK_API_KEY: "", WHALE_DATA_API_KEY: "", LIQUIDITY_CHECKS: "false" });
    const { token } = await login(ctx);
    const res = await ctx.request("GET", "/api/v1/data-sources/status", { token });
    expect(await json(res)).toEqual({
      priceNetwork: { configured: false, reachable: null },
      solPriceFeed: { configured: true, reachable: null },
      swapAggregator: { configured: true, reachable: null },
      marketData: { configured: true, reachable: null },
      liquidityChecks: { configured: false, reachable: null },
      signalGeneration: { configured: false, reachable: null },
      solanaRpc: { configured: false, reachable: null },
      solanaConfirmRpc: { configured: false, reachable: null },
      jitoBlockEngine: { configured: false, reachable: null },
    });
  });

  test("30 requests per minute per user; the 31st is 429 with retryAfter", async () => {
    ctx = await createTestContext();
    const { token } = await login(ctx);
    for (let i = 0; i < 30; i++) {
      const ok = await ctx.request("GET", "/api/v1/data-sources/status", { token });
      expect(ok.status).toBe(200);
    }
    const limited = await ctx.request("GET", "/api/v1/data-sources/status", { token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await json(limited)).toEqual({
      success: false,
      error: "Too many requests. Please try again later.",
      code: "RATE_LIMITED",
      retryAfter: 60,
    });
    const other = await createUser(ctx);
    expect((await ctx.request("GET", "/api/v1/data-sources/status", { token: other.token })).status).toBe(200);
    ctx.clock.advance(60_001);
    expect((await ctx.request("GET", "/api/v1/data-sources/status", { token })).status).toBe(200);
  });
});
