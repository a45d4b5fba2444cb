import { afterEach, describe, expect, test } from "bun:test";
import { ServiceNotConfiguredError } from "../../src/errors.ts";
import { SOL_USD_FEED_ID } from "../../src/market/hermes.ts";
import { SOL_MINT } from "../../src/money.ts";
import { fakeMarketPerFile } from "../helpers/fake-market.ts";
import { type MarketHarness, marketHarness, rejection, until } from "./helpers.ts";

// SOL/USD (SPEC "SOL price", PRODUCT.md §5): the Hermes SSE stream with reconnects, latest
// polling while it is down, Jupiter as second source (and only one without a Hermes key),
// staleness on the injected clock, price.sol events.

let h: MarketHarness | null = null;
const fake = await fakeMarketPerFile(() => {
  fake.streams.available = true;
  fake.streams.paused = false;
  fake.setSolPrice("150", { push: false });
});
afterEach(async () => {
  await h?.stop();
  h = null;
  fake.dropStreams();
});

const price = () => h!.market.solPrice.current();

describe("stream mode (priceNetwork configured)", () => {
  test("connects with the key, reads price × 10^expo, 8 decimals, fresh", async () => {
    h = marketHarness(fake);
    expect(h.market.solPrice.mode).toBe("stream");
    expect(price()).toBeNull();
    h.market.solPrice.start();
    await until(() => price() !== null && !price()!.isStale, "first price");
    expect(price()).toEqual({
      price: "150.00000000",
      lastUpdated: "2026-01-01T00:00:00.000Z",
      isStale: false,
      source: "priceNetwork",
    });
    const r = fake.requestsTo("hermes.stream")[0]!;
    expect(r.headers.authorization).toBe("Bearer fake-hermes-key");
    expect(r.headers.accept).toBe("text/event-stream");
    expect(r.query.getAll("ids[]")).toEqual([SOL_USD_FEED_ID]);
    expect(fake.requestsTo("jupiter.price")).toHaveLength(0);

    fake.setSolPrice("151.123456789");
    await until(() => price()?.price === "151.12345678", "pushed update");
  });

  test("price.sol events on changes (throttled) and on staleness flips", async () => {
    h = marketHarness(fake, {}, { solPrice: { publishIntervalMs: 1_000 } });
    h.market.solPrice.start();
    await until(() => h!.published.length === 1, "first event");
    expect(h.published[0]).toMatchObject({
      type: "price.sol",
      userId: null,
      data: { price: "150.00000000", isStale: false, source: "priceNetwork" },
    });
    fake.setSolPrice("152");
    await until(() => price()?.price === "152.00000000", "update");
    expect(h.published).toHaveLength(1); // within the throttle interval
    h.clock.advance(1_000);
    fake.setSolPrice("153");
    await until(() => h!.published.length === 2, "second event");
    expect(h.published[1]!.data).toEqual({
      price: "153.00000000",
      lastUpdated: "2026-01-01T00:00:01.000Z",
      isStale: false,
      source: "priceNetwork",
    });
    // The stream drops: staleness flips and is published at once, throttle or not.
    fake.streams.available = false;
    fake.dropStreams();
    await until(() => h!.published.some((e) => e.data.isStale === true), "stale event");
  });

  test("stale after more than 60 s without an update, fresh again with the next one", async () => {
    // The idle watchdog would take a minute of clock silence for a dropped stream (tested apart);
    // here only the price's age may make it stale.
    h = marketHarness(fake, {}, { solPrice: { idleTimeoutMs: 10 * 60_000 } });
    h.market.solPrice.start();
    await until(() => price()?.isStale === false, "fresh");
    h.clock.advance(60_000);
    expect(price()!.isStale).toBe(false); // exactly 60 s is not "more than"
    h.clock.advance(1);
    expect(price()!.isStale).toBe(true);
    fake.setSolPrice("149.5");
    await until(() => price()?.price === "149.50000000", "update");
    expect(price()!.isStale).toBe(false);
  });

  test("drop: stale while down (polling latest keeps the value current), fresh after reconnect", async () => {
    h = marketHarness(fake);
    h.market.solPrice.start();
    await until(() => price()?.isStale === false, "fresh");
    fake.streams.available = false;
    fake.dropStreams();
    await until(() => price()?.isStale === true, "stale while down");
    fake.setSolPrice("160", { push: false });
    await until(() => price()?.price === "160.00000000", "latest poll");
    expect(price()).toMatchObject({ isStale: true, source: "priceNetwork" });
    expect(fake.requestsTo("hermes.latest")[0]!.headers.authorization).toBe("Bearer fake-hermes-key");
    // Reconnect attempts, refused (the poll above may answer before the first retry is sent).
    await until(() => fake.requestsTo("hermes.stream").length > 1, "reconnect attempts");
    fake.streams.available = true;
    await until(() => h!.market.solPrice.connects === 2 && price()?.isStale === false, "reconnected");
    expect(h.market.solPrice.connected).toBe(true);
  });

  test("Hermes latest failing too: Jupiter is the second source", async () => {
    h = marketHarness(fake);
    fake.streams.available = false;
    fake.inject("hermes.latest", ...Array.from({ length: 300 }, () => ({ status: 503, body: { error: "down" } })));
    fake.setSolPrice("171.5", { push: false });
    h.market.solPrice.start();
    await until(() => price() !== null, "fallback price");
    expect(price()).toMatchObject({ price: "171.50000000", source: "solPriceFeed", isStale: true });
    expect(fake.requestsTo("jupiter.price")[0]!.query.get("ids")).toBe(SOL_MINT);
  });

  test("keep-alive comments keep a quiet stream; real silence past idleTimeoutMs reconnects", async () => {
    h = marketHarness(fake, {}, { solPrice: { idleTimeoutMs: 30_000, idleCheckMs: 2 } });
    const before = fake.streams.connections;
    h.market.solPrice.start();
    await until(() => price()?.isStale === false, "fresh");
    fake.streams.paused = true; // no more price events
    h.clock.advance(20_000);
    fake.streams.sendKeepAlive();
    await until(() => h!.market.solPrice.keepAlives === 1, "keep-alive read");
    h.clock.advance(20_000); // 40 s since connect, 20 s since the keep-alive
    // Nothing else reads the clock while the stream is quiet: each read is one look of the watchdog.
    const reads = h.clock.reads;
    await until(() => h!.clock.reads >= reads + 10, "ten looks of the watchdog");
    expect(h.logs.some((l) => l.includes("SOL price stream silent"))).toBe(false);
    expect(h.market.solPrice.connects).toBe(1);
    expect(fake.streams.connections - before).toBe(1);
    h.clock.advance(10_001); // now more than 30 s of silence
    await until(() => fake.streams.connections - before === 2, "reconnect after silence");
    expect(h.logs.some((l) => l.includes("SOL price stream silent, reconnecting"))).toBe(true);
  });

  test("a malformed event is skipped and logged; the stream carries on", async () => {
    h = marketHarness(fake);
    h.market.solPrice.start();
    await until(() => price()?.isStale === false, "fresh");
    fake.streams.sendRaw("data: {not json\n\n");
    fake.streams.sendRaw(
      `data: ${JSON.stringify({ parsed: [{ id: SOL_USD_FEED_ID, price: { price: "-5", expo: -8 } }] })}\n\n`,
    );
    fake.setSolPrice("155");
    await until(() => price()?.price === "155.00000000", "next good update");
    expect(h.market.solPrice.connects).toBe(1);
    expect(h.logs.filter((l) => l.includes("without a usable price"))).toHaveLength(1);
  });

  test("stop() closes the stream and nothing reconnects", async () => {
    h = marketHarness(fake);
    h.market.solPrice.start();
    await until(() => fake.streams.openCount === 1, "connected");
    const seen = fake.requests.length;
    // stop() resolves once every loop of the feed has ended, so what it leaves is final: the
    // stream closed, and no reconnect or fallback poll asked for while it stopped.
    await h.market.solPrice.stop();
    await until(() => fake.streams.openCount === 0, "closed");
    expect(fake.requests.length).toBe(seen);
    expect(h.logs.filter((l) => l.includes("reconnecting") || l.includes("SOL price stream failed"))).toEqual([]);
  });
});

describe("poll mode (no PRICE_NETWORK_API_KEY)", () => {
  test("Jupiter is the only source; Hermes is never called", async () => {
    h = marketHarness(fake, { PRICE_NETWORK_API_KEY: "" });
    expect(h.market.solPrice.mode).toBe("poll");
    h.market.solPrice.start();
    await until(() => price() !== null, "first poll");
    expect(price()).toEqual({
      price: "150.00000000",
      lastUpdated: "2026-01-01T00:00:00.000Z",
      isStale: false,
      source: "solPriceFeed",
    });
    fake.setSolPrice("148.25", { push: false });
    await until(() => price()?.price === "148.25000000", "next poll");
    expect(fake.requests.filter((r) => r.route.startsWith("hermes"))).toHaveLength(0);
  });

  test("a failed poll marks the price stale; the next success clears it", async () => {
    h = marketHarness(fake, { PRICE_NETWORK_API_KEY: "" });
    await h.market.solPrice.refresh();
    expect(price()!.isStale).toBe(false);
    fake.inject(
      "jupiter.price",
      { status: 500, body: {} },
      { status: 500, body: {} },
      { status: 500, body: { error: "Internal" } },
    );
    const err = await rejection(h.market.solPrice.refresh());
    expect(err.message).toBe("solPriceFeed returned HTTP 500: Internal");
    expect(price()!.isStale).toBe(true);
    await h.market.solPrice.refresh();
    expect(price()!.isStale).toBe(false);
  });

  test("fetchCurrent() answers from memory once a price is known", async () => {
    h = marketHarness(fake, { PRICE_NETWORK_API_KEY: "" });
    await h.market.solPrice.fetchCurrent();
    await h.market.solPrice.fetchCurrent();
    expect(fake.requestsTo("jupiter.price")).toHaveLength(1);
  });
});

test("nothing configured: start() connects nowhere, fetchCurrent() is a 503", async () => {
  h = marketHarness(fake, { PRICE_NETWORK_URL: "", SOL_PRICE_FEED_URL: "" });
  expect(h.market.solPrice.configured).toBe(false);
  h.market.solPrice.start();
  const err = await rejection(h.market.solPrice.fetchCurrent());
  expect(err).toBeInstanceOf(ServiceNotConfiguredError);
  expect(err.message).toBe(
    "SOL price feed is not configured: set SOL_PRICE_FEED_URL, or PRICE_NETWORK_URL and PRICE_NETWORK_API_KEY",
  );
  expect(fake.requests).toHaveLength(0);
});
