import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { ErrorCode, ExternalServiceError, toErrorBody } from "../../src/errors.ts";
import { HttpClient, type HttpClientOptions, type ProviderError } from "../../src/market/http-client.ts";
import { RateLimiter } from "../../src/market/rate-limiter.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { rejection } from "./helpers.ts";

// The shared HTTP client (PRODUCT.md §5): retries on 429/5xx honouring Retry-After and
// x-ratelimit-reset, at most two; timeouts; malformed JSON; errors naming the source; pacing.

let timer: ManualClock;
const fake = await fakeMarketPerFile(() => {
  timer = new ManualClock();
});

const client = (o: Partial<HttpClientOptions> = {}) =>
  new HttpClient({ service: "swapAggregator", baseUrl: fake.url, timeoutMs: 2_000, timer, ...o });
const price = (c: HttpClient) => c.getJson("/price/v3", { ids: "So11111111111111111111111111111111111111112" });
const body502 = (err: unknown) => toErrorBody(err, { development: false });

describe("retries", () => {
  test("429 with Retry-After, then success: waits what the provider asked", async () => {
    fake.inject("jupiter.price", {
      status: 429,
      body: { error: "Rate limit exceeded" },
      headers: { "retry-after": "2" },
    });
    const body = (await price(client())) as Record<string, { usdPrice: number }>;
    expect(body.So11111111111111111111111111111111111111112?.usdPrice).toBe(150);
    expect(fake.requestsTo("jupiter.price")).toHaveLength(2);
    expect(timer.sleeps).toEqual([2_000]);
  });

  test("429 with x-ratelimit-reset (seconds from now, or an epoch)", async () => {
    fake.inject(
      "jupiter.price",
      { status: 429, body: {}, headers: { "x-ratelimit-reset": "1" } },
      { status: 429, body: {}, headers: { "x-ratelimit-reset": String(Math.floor(timer.now() / 1000) + 4) } },
    );
    await price(client());
    expect(fake.requestsTo("jupiter.price")).toHaveLength(3);
    expect(timer.sleeps[0]).toBe(1_000);
    // The epoch is 4 s after the start; 1 s has passed on the virtual clock.
    expect(timer.sleeps[1]).toBe(3_000);
  });

  test("500 twice, then success: exponential back-off without a hint", async () => {
    fake.inject(
      "jupiter.price",
      { status: 500, body: { error: "boom" } },
      { status: 502, raw: "<html>Bad gateway</html>" },
    );
    await price(client());
    expect(fake.requestsTo("jupiter.price")).toHaveLength(3);
    expect(timer.sleeps).toEqual([250, 500]);
  });

  test("at most two retries: the third 5xx is a 502 naming the source", async () => {
    fake.inject(
      "jupiter.price",
      { status: 503, body: { error: "down" } },
      { status: 503, body: { error: "down" } },
      { status: 503, body: { error: "still down" } },
    );
    const err = await rejection(price(client()));
    expect(fake.requestsTo("jupiter.price")).toHaveLength(3);
    expect(err).toBeInstanceOf(ExternalServiceError);
    expect(err.message).toBe("swapAggregator returned HTTP 503: still down");
    expect(body502(err)).toEqual({
      status: 502,
      body: {
        success: false,
        error: "swapAggregator returned HTTP 503: still down",
        code: ErrorCode.EXTERNAL_SERVICE_ERROR,
        details: { service: "swapAggregator", statusCode: 503 },
      },
    });
  });

  test("a Retry-After beyond the longest acceptable wait fails at once", async () => {
    fake.inject("jupiter.price", { status: 429, body: { message: "banned" }, headers: { "retry-after": "60" } });
    const err = await rejection(price(client()));
    expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
    expect(err.message).toBe("swapAggregator returned HTTP 429: banned");
    expect(err.details).toEqual({ service: "swapAggregator", statusCode: 429 });
  });

  test("4xx other than 429 is not retried; the provider's text and code are kept", async () => {
    fake.inject("jupiter.price", {
      status: 400,
      body: { error: "Could not find any route", errorCode: "COULD_NOT_FIND_ANY_ROUTE" },
    });
    const err = (await rejection(price(client()))) as ProviderError;
    expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
    expect(err.message).toBe("swapAggregator returned HTTP 400: Could not find any route");
    expect(err.providerCode).toBe("COULD_NOT_FIND_ANY_ROUTE");
    expect(err.failure).toBe("status");
  });

  test("a refused connection is retried twice, then reported as unreachable", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const deadUrl = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const err = await rejection(client({ baseUrl: deadUrl, service: "marketData" }).getJson("/tokens/v1/solana/x"));
    expect(err.message).toBe("marketData is unreachable");
    expect(err.details).toEqual({ service: "marketData" });
    expect(timer.sleeps).toEqual([250, 500]);
  });
});

describe("bad answers", () => {
  test("timeout: a clear 502, not retried", async () => {
    fake.inject("jupiter.price", { delayMs: 300 });
    const err = (await rejection(price(client({ timeoutMs: 50 })))) as ProviderError;
    expect(err.failure).toBe("timeout");
    expect(body502(err).body).toEqual({
      success: false,
      error: "swapAggregator did not answer within 50 ms",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "swapAggregator" },
    });
    expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
  });

  test("malformed JSON: a clear 502, never a crash", async () => {
    fake.inject("jupiter.price", { status: 200, raw: '{"So111": {"usdPrice": 1' });
    const err = (await rejection(price(client()))) as ProviderError;
    expect(err.failure).toBe("malformed");
    expect(body502(err)).toEqual({
      status: 502,
      body: {
        success: false,
        error: "swapAggregator returned malformed JSON",
        code: "EXTERNAL_SERVICE_ERROR",
        details: { service: "swapAggregator", statusCode: 200 },
      },
    });
  });

  test("headers: the adapter's key headers and JSON accept are sent", async () => {
    await price(client({ headers: { "x-api-key": "k1" } }));
    const r = fake.requestsTo("jupiter.price")[0]!;
    expect(r.headers["x-api-key"]).toBe("k1");
    expect(r.headers.accept).toBe("application/json");
    expect(r.query.get("ids")).toBe("So11111111111111111111111111111111111111112");
  });
});

describe("client-side rate limit", () => {
  test("one limiter shared by two clients spaces all their requests", async () => {
    const limiter = new RateLimiter({ intervalMs: 2_000 }, timer);
    const a = client({ limiter });
    const b = client({ limiter, service: "solPriceFeed" });
    await price(a);
    await price(b);
    await price(a);
    expect(timer.sleeps).toEqual([2_000, 2_000]);
  });

  test("concurrent callers queue in order", async () => {
    const limiter = new RateLimiter({ intervalMs: 1_000 }, timer);
    const c = client({ limiter });
    const start = timer.now();
    await Promise.all([price(c), price(c), price(c)]);
    // The virtual sleeps advance one shared clock: the third request goes out 2 s after the first.
    expect(timer.now() - start).toBe(2_000);
    expect(fake.requestsTo("jupiter.price")).toHaveLength(3);
  });

  test("a 429 holds the shared limiter for every caller", async () => {
    const limiter = new RateLimiter({ intervalMs: 100 }, timer);
    fake.inject("jupiter.price", { status: 429, body: {}, headers: { "retry-after": "3" } });
    await price(client({ limiter }));
    // First request at t0; the 429 asks for 3 s: the retry waits until then.
    expect(timer.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3_000);
  });
});

describe("RateLimiter", () => {
  test("burst then spacing", async () => {
    const l = new RateLimiter({ intervalMs: 500, burst: 3 }, timer);
    for (let i = 0; i < 5; i++) await l.acquire();
    expect(timer.sleeps).toEqual([500, 500]);
  });

  test("interval 0 never waits", async () => {
    const l = new RateLimiter({ intervalMs: 0 }, timer);
    for (let i = 0; i < 5; i++) await l.acquire();
    expect(timer.sleeps).toEqual([]);
  });

  test("idle time refills the allowance", async () => {
    const l = new RateLimiter({ intervalMs: 1_000 }, timer);
    await l.acquire();
    timer.advance(5_000);
    await l.acquire();
    expect(timer.sleeps).toEqual([]);
  });
});
