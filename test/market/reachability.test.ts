import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";

// Issue 13 item 5: each outside source's reachability comes from observing its calls and from a
// prober that asks only sources not heard from for a minute; /health degrades while the swap
// aggregator or the SOL price source is unreachable; /data-sources/status adds `reachable`.

let ctx: TestContext;
const fake = await fakeMarketPerFile();
beforeEach(async () => {
  fake.setSolPrice("150", { push: false });
  const opts = fake.serviceOptions();
  ctx = await createTestContext({ env: fake.env({ PRICE_NETWORK_API_KEY: "" }), services: opts });
});
afterEach(() => ctx.close());

const status = async () => {
  const { token } = await login(ctx);
  return json(await ctx.request("GET", "/api/v1/data-sources/status", { token }));
};
const health = async () => json(await ctx.request("GET", "/api/v1/health"));

/** /health apart from the SOL price's freshness (no stream runs in these tests). */
const overall = (h: { services: Record<string, { status: string }> }) =>
  Object.entries(h.services).some(([name, c]) => name !== "priceFeed" && c.status !== "healthy")
    ? "degraded"
    : "healthy";

describe("reachability", () => {
  test("never tried: reachable null, /health healthy, and reading the status calls nobody", async () => {
    const s = await status();
    expect(s.swapAggregator).toEqual({ configured: true, reachable: null });
    expect(s.priceNetwork).toEqual({ configured: false, reachable: null });
    expect(fake.requests).toHaveLength(0);
    const h = await health();
    expect(h.services.swapAggregator).toMatchObject({ status: "healthy", reachable: null });
    expect(h.services.solPriceFeed).toMatchObject({ status: "healthy", reachable: null });
  });

  test("a probe round asks each configured source once; answers make them reachable", async () => {
    await ctx.services.market.prober.tick();
    const routes = fake.requests.map((r) => r.route).sort();
    // swapAggregator and solPriceFeed (both Jupiter price), marketData (DexScreener); no Birdeye.
    expect(routes).toEqual(["dexscreener.tokens", "jupiter.price", "jupiter.price"]);
    const s = await status();
    expect(s.swapAggregator.reachable).toBe(true);
    expect(s.solPriceFeed.reachable).toBe(true);
    expect(s.marketData.reachable).toBe(true);
    expect(s.liquidityChecks.reachable).toBe(true);
    expect(s.signalGeneration.reachable).toBe(null);
    // Heard from just now: the next round within the minute asks nobody.
    fake.requests.length = 0;
    ctx.clock.advance(59_000);
    await ctx.services.market.prober.tick();
    expect(fake.requests).toHaveLength(0);
    ctx.clock.advance(1_000);
    await ctx.services.market.prober.tick();
    expect(fake.requests.length).toBe(3);
  });

  test("an unreachable swap aggregator degrades /health with the time and error; it recovers", async () => {
    fake.inject("jupiter.price", { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    fake.inject("jupiter.price", { status: 503 }, { status: 503 });
    await ctx.services.market.prober.tick();
    const h = await health();
    expect(h.status).toBe("degraded");
    expect(overall(h)).toBe("degraded");
    expect(h.services.swapAggregator).toMatchObject({
      status: "degraded",
      reachable: false,
      lastFailureAt: "2026-01-01T00:00:00.000Z",
      lastError: "swapAggregator returned HTTP 503",
    });
    expect((await status()).swapAggregator).toEqual({ configured: true, reachable: false });
    // A 4xx is an answer: the source is reachable (the request was wrong, not the network).
    fake.clearInjected();
    fake.inject("jupiter.price", { status: 400, body: { error: "bad ids" } });
    ctx.clock.advance(60_000);
    await ctx.services.market.prober.tick();
    const after = await health();
    expect(after.services.swapAggregator).toMatchObject({ status: "healthy", reachable: true });
    expect(overall(after)).toBe("healthy");
    expect((await status()).swapAggregator.reachable).toBe(true);
  });

  test("a refused connection is unreachable too", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    await ctx.close();
    ctx = await createTestContext({
      env: fake.env({ PRICE_NETWORK_API_KEY: "", SWAP_AGGREGATOR_URL: `http://127.0.0.1:${port}` }),
      services: fake.serviceOptions(),
    });
    await ctx.services.market.prober.tick();
    const h = await health();
    expect(h.status).toBe("degraded");
    expect(h.services.swapAggregator).toMatchObject({ reachable: false, lastError: "swapAggregator is unreachable" });
    expect(h.services.solPriceFeed).toMatchObject({ status: "healthy", reachable: true });
  });
});
