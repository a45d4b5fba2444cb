import { describe, expect, test } from "bun:test";
import { agents, positions } from "../../src/db/schema/index.ts";
import { contextsClosedAfterEach, createApiKey, json, login, type TestContext } from "../helpers/context.ts";
import { type Family, parseExposition, sampleValue } from "./exposition.ts";

// GET /metrics (SPEC; PRODUCT.md §6): process CPU and memory, http_requests_total{method,status}
// plus the route pattern, a duration histogram, and the trading metrics; valid for promtool.

const context = contextsClosedAfterEach();

async function scrape(ctx: TestContext): Promise<{ text: string; families: Map<string, Family> }> {
  const res = await ctx.request("GET", "/metrics");
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, families: parseExposition(text) };
}

function expectFamily(families: Map<string, Family>, name: string, type: string) {
  const f = families.get(name);
  expect(f, `${name} is exposed`).toBeDefined();
  expect(f!.type, `${name} type`).toBe(type);
  expect(f!.help, `${name} help`).toBeTruthy();
  return f!;
}

describe("exposition", () => {
  test("GET /api/v1/metrics serves the same exposition as GET /metrics", async () => {
    const ctx = await context();
    const root = await ctx.request("GET", "/metrics");
    const api = await ctx.request("GET", "/api/v1/metrics");
    expect(api.status).toBe(200);
    expect(api.headers.get("content-type")).toBe(root.headers.get("content-type"));
    // Same families with the same types and help (values move between two scrapes).
    const a = parseExposition(await root.text());
    const b = parseExposition(await api.text());
    expect([...b.keys()].toSorted()).toEqual([...a.keys()].toSorted());
    for (const [name, f] of a)
      expect({ type: b.get(name)?.type, help: b.get(name)?.help }, name).toEqual({ type: f.type, help: f.help });
  });

  test("no credential, Prometheus text content type, process CPU and memory", async () => {
    const ctx = await context();
    const res = await ctx.request("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = parseExposition(await res.text());
    expectFamily(families, "process_cpu_seconds_total", "counter");
    expectFamily(families, "process_cpu_user_seconds_total", "counter");
    expectFamily(families, "process_resident_memory_bytes", "gauge");
    expectFamily(families, "nodejs_heap_size_used_bytes", "gauge");
    expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleValue(families, "process_cpu_seconds_total")).toBeGreaterThan(0);
  });

  test("valid under `promtool check metrics` (lint included)", async () => {
    const ctx = await context();
    // Some traffic first, so labelled series and histograms are in the text.
    await ctx.request("GET", "/api/v1/health");
    await ctx.request("GET", "/api/v1/nowhere");
    ctx.services.metrics.trades.inc({ mode: "live", side: "sell", outcome: "failed" });
    ctx.services.metrics.setSources({
      solPrice: () => ({ priceUsd: 150.25, updatedAt: ctx.clock.now(), stale: false }),
    });
    const { text } = await scrape(ctx);
    const promtool = Bun.which("promtool");
    if (!promtool) {
      console.warn(
        "NOTICE: promtool not installed (Debian package `prometheus`); skipping the promtool assertion, the parser checks still ran.",
      );
      return;
    }
    const proc = Bun.spawn([promtool, "check", "metrics"], {
      stdin: new TextEncoder().encode(text),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(out + err).toBe("");
    expect(code).toBe(0);
  });

  test("each app has its own registry: one app's requests never show in another's", async () => {
    const a = await context();
    const b = await context();
    await a.request("GET", "/api/v1/health/live");
    await a.request("GET", "/api/v1/health/live");
    expect(sampleValue((await scrape(a)).families, "http_requests_total", { route: "/api/v1/health/live" })).toBe(2);
    const other = (await scrape(b)).families.get("http_requests_total")!;
    // A scrape is counted once it is answered, so b's first scrape shows no request at all.
    expect(other.samples).toEqual([]);
  });

  test("a scrape survives a closed database (the open-positions reader fails quietly)", async () => {
    const ctx = await context();
    ctx.database.close();
    const { families } = await scrape(ctx);
    expect(sampleValue(families, "trading_open_positions", { mode: "simulation" })).toBe(0);
  });
});

describe("http_requests_total and http_request_duration_seconds", () => {
  test("labelled by method, status and the route PATTERN, never the raw path", async () => {
    const ctx = await context();
    const { token } = await login(ctx);
    const id = "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10";
    expect((await ctx.request("GET", `/api/v1/api-keys/${id}`)).status).toBe(401); // refused by auth middleware
    expect((await ctx.request("GET", `/api/v1/api-keys/${id}`, { token })).status).toBe(404); // handler's NotFound
    expect((await ctx.request("GET", "/api/v1/api-keys/not-a-uuid", { token })).status).toBe(400); // validator
    expect((await ctx.request("GET", `/api/v1/no-such-thing/${id}`)).status).toBe(404); // no route
    expect((await ctx.request("DELETE", "/api/v1/health")).status).toBe(405); // path exists, method does not
    expect(
      (
        await ctx.request("POST", "/api/v1/auth/login", {
          rawBody: "{",
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);

    const { text, families } = await scrape(ctx);
    expect(text).not.toContain(id);
    expect(text).not.toContain("not-a-uuid");
    expect(text).not.toContain("no-such-thing");
    const requests = expectFamily(families, "http_requests_total", "counter");
    for (const s of requests.samples) expect(Object.keys(s.labels).sort()).toEqual(["method", "route", "status"]);
    const count = (labels: Record<string, string>) => sampleValue(families, "http_requests_total", labels);
    expect(count({ method: "GET", status: "401", route: "/api/v1/api-keys/:id" })).toBe(1);
    expect(count({ method: "GET", status: "404", route: "/api/v1/api-keys/:id" })).toBe(1);
    expect(count({ method: "GET", status: "400", route: "/api/v1/api-keys/:id" })).toBe(1);
    expect(count({ method: "GET", status: "404", route: "unmatched" })).toBe(1);
    expect(count({ method: "DELETE", status: "405", route: "unmatched" })).toBe(1);
    expect(count({ method: "POST", status: "400", route: "/api/v1/auth/login" })).toBe(1);
    expect(count({ method: "POST", status: "200", route: "/api/v1/auth/login" })).toBe(1);
  });

  test("the duration histogram has buckets, sum and count per series, matching the counter", async () => {
    const ctx = await context();
    for (let i = 0; i < 3; i++) await ctx.request("GET", "/api/v1/health/live");
    const { families } = await scrape(ctx);
    const hist = expectFamily(families, "http_request_duration_seconds", "histogram");
    const labels = { method: "GET", status: "200", route: "/api/v1/health/live" };
    expect(sampleValue(families, "http_request_duration_seconds_count", labels)).toBe(3);
    expect(sampleValue(families, "http_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
    expect(sampleValue(families, "http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(3);
    const buckets = hist.samples.filter(
      (s) => s.name === "http_request_duration_seconds_bucket" && s.labels.route === labels.route,
    );
    expect(buckets.length).toBeGreaterThan(5);
    // Cumulative buckets never decrease.
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(sampleValue(families, "http_requests_total", labels)).toBe(3);
  });
});

describe("trading metrics", () => {
  test("signals received and trades by mode/side/outcome, every combination present from the start", async () => {
    const ctx = await context();
    let { families } = await scrape(ctx);
    expectFamily(families, "trading_signals_received_total", "counter");
    expect(sampleValue(families, "trading_signals_received_total")).toBe(0);
    const trades = expectFamily(families, "trading_trades_total", "counter");
    expect(trades.samples).toHaveLength(8);
    for (const s of trades.samples) expect(s.value).toBe(0);

    const m = ctx.services.metrics;
    m.signalsReceived.inc();
    m.signalsReceived.inc();
    m.trades.inc({ mode: "simulation", side: "buy", outcome: "success" });
    m.trades.inc({ mode: "simulation", side: "buy", outcome: "success" });
    m.trades.inc({ mode: "live", side: "sell", outcome: "failed" });
    ({ families } = await scrape(ctx));
    expect(sampleValue(families, "trading_signals_received_total")).toBe(2);
    expect(sampleValue(families, "trading_trades_total", { mode: "simulation", side: "buy", outcome: "success" })).toBe(
      2,
    );
    expect(sampleValue(families, "trading_trades_total", { mode: "live", side: "sell", outcome: "failed" })).toBe(1);
    expect(sampleValue(families, "trading_trades_total", { mode: "live", side: "buy", outcome: "success" })).toBe(0);
  });

  test("POST /trading-signals counts each accepted signal once; an idempotent replay and a refused one do not count", async () => {
    const ctx = await context();
    const { token } = await login(ctx);
    const key = (await createApiKey(ctx, token, ["signals"])).key;
    const signal = {
      tokenAddress: "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263",
      signalType: "buy",
      signalStrength: 4,
    };
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      ctx.request("POST", "/api/v1/trading-signals", { apiKey: key, body, headers });
    expect((await post(signal, { "idempotency-key": "k1" })).status).toBe(201);
    expect((await post(signal, { "idempotency-key": "k1" })).status).toBe(201); // replay
    expect((await post({ ...signal, signalStrength: 9 })).status).toBe(400);
    expect((await post(signal)).status).toBe(201);
    await ctx.services.signalQueue.idle();
    const { families } = await scrape(ctx);
    expect(sampleValue(families, "trading_signals_received_total")).toBe(2);
  });

  test("open positions are counted per mode from the positions table at scrape time", async () => {
    const ctx = await context();
    let { families } = await scrape(ctx);
    expectFamily(families, "trading_open_positions", "gauge");
    expect(sampleValue(families, "trading_open_positions", { mode: "simulation" })).toBe(0);
    expect(sampleValue(families, "trading_open_positions", { mode: "live" })).toBe(0);

    const { user } = await login(ctx);
    const now = new Date(ctx.clock.now()).toISOString();
    const agentId = crypto.randomUUID();
    ctx.database.db
      .insert(agents)
      .values({ id: agentId, userId: user.id, name: "a", createdAt: now, updatedAt: now })
      .run();
    const position = (token: string, mode: string, status: "open" | "closed") => ({
      id: crypto.randomUUID(),
      agentId,
      walletAddress: "sim_wallet",
      tradingMode: mode,
      tokenAddress: token,
      tokenSymbol: "TOK",
      status,
      entryPriceSol: "0.001",
      entryPriceUsd: "0.15",
      purchaseAmount: "1000",
      costSol: "1",
      costUsd: "150",
      remainingAmount: "1000",
      peakPriceSol: "0.001",
      purchaseTransactionId: crypto.randomUUID(),
      purchaseTransactionHash: "sim_tx",
      openedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    ctx.database.db
      .insert(positions)
      .values([
        position("T1", "simulation", "open"),
        position("T2", "simulation", "open"),
        position("T3", "live", "open"),
        position("T4", "simulation", "closed"),
      ])
      .run();
    ({ families } = await scrape(ctx));
    expect(sampleValue(families, "trading_open_positions", { mode: "simulation" })).toBe(2);
    expect(sampleValue(families, "trading_open_positions", { mode: "live" })).toBe(1);
  });

  test("SOL price and its staleness come from the registered price source", async () => {
    const ctx = await context();
    let { families } = await scrape(ctx);
    // Before any price stream: no price (0), infinitely old, and stale.
    expect(sampleValue(families, "sol_price_usd")).toBe(0);
    expect(sampleValue(families, "sol_price_age_seconds")).toBe(Infinity);
    expect(sampleValue(families, "sol_price_stale")).toBe(1);

    let snapshot = { priceUsd: 187.42 as number | null, updatedAt: ctx.clock.now() as number | null, stale: false };
    ctx.services.metrics.setSources({ solPrice: () => snapshot });
    ctx.clock.advance(12_500);
    ({ families } = await scrape(ctx));
    expectFamily(families, "sol_price_usd", "gauge");
    expect(sampleValue(families, "sol_price_usd")).toBe(187.42);
    expect(sampleValue(families, "sol_price_age_seconds")).toBe(12.5);
    expect(sampleValue(families, "sol_price_stale")).toBe(0);

    snapshot = { ...snapshot, stale: true };
    ctx.clock.advance(60_000);
    ({ families } = await scrape(ctx));
    expect(sampleValue(families, "sol_price_age_seconds")).toBe(72.5);
    expect(sampleValue(families, "sol_price_stale")).toBe(1);

    // A source that throws (stream torn down) reads as no price, never as a failed scrape.
    ctx.services.metrics.setSources({
      solPrice: () => {
        throw new Error("stream closed");
      },
    });
    ({ families } = await scrape(ctx));
    expect(sampleValue(families, "sol_price_usd")).toBe(0);
    expect(sampleValue(families, "sol_price_stale")).toBe(1);
  });
});

test("the status endpoint answers JSON errors as before once metrics are on (no interference)", async () => {
  const ctx = await context();
  const res = await ctx.request("GET", "/api/v1/auth/me");
  expect(res.status).toBe(401);
  expect(await json(res)).toEqual({
    success: false,
    error: "Authorization header required",
    code: "AUTHENTICATION_ERROR",
  });
});
