import { describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/auth/hashing.ts";
import { TRADINGVIEW_ADDRESSES } from "../../src/ip-ranges.ts";
import { createAgent } from "../agents/fixtures.ts";
import { contextsClosedAfterEach, createApiKey, json, login, type TestContext } from "../helpers/context.ts";
import { until } from "../helpers/until.ts";

// Signal hooks (issue 42, PRODUCT.md §4): what TradingView sends, as it sends it — text/plain with
// no header, placeholders as strings, up to four deliveries of one alert, a {{timenow}} that may
// be stale — through the real app and database. The credential checks of the management routes
// are the generated test/http/route-security.test.ts's.

const context = contextsClosedAfterEach();
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const WIF = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";

let ctx: TestContext;
let jwt: string;

async function setup(env: Record<string, string> = {}) {
  ctx = await context(env);
  jwt = (await login(ctx)).token;
}

async function createHook(body: Record<string, unknown> = {}) {
  const res = await ctx.request("POST", "/api/v1/signal-hooks", {
    token: jwt,
    body: { name: "tv", tokens: { BONKUSDT: BONK }, ...body },
  });
  expect(res.status).toBe(201);
  return json(res);
}

/** What TradingView sends: the alert's message as the body, text/plain when it is not JSON... and when it is, too, for some alerts. */
function tradingView(url: string, message: string, opts: { contentType?: string; from?: string } = {}) {
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "text/plain; charset=utf-8" };
  if (opts.from) headers["x-forwarded-for"] = opts.from;
  return ctx.request("POST", url, { rawBody: message, headers });
}

const nowIso = () => new Date(ctx.clock.now()).toISOString();
const alert = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ symbol: "BONKUSDT", signalType: "buy", signalStrength: "4", timestamp: nowIso(), ...extra });
const signalCount = () =>
  (ctx.database.sqlite.query("SELECT count(*) AS n FROM trading_signals").get() as { n: number }).n;

describe("managing signal hooks", () => {
  test("create answers the token once (URL-safe, 256 bits), stores only its digest; list and get never show it", async () => {
    await setup();
    const hook = await createHook({ allowedIps: ["tradingview", "203.0.113.0/24"] });
    expect(hook).toEqual({
      id: expect.any(String),
      name: "tv",
      source: "hook:tv",
      allowedIps: ["tradingview", "203.0.113.0/24"],
      tokens: { BONKUSDT: BONK },
      url: `/api/v1/hooks/${hook.token}`,
      token: expect.stringMatching(/^whk_[A-Za-z0-9_-]{43}$/),
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    const row = ctx.database.sqlite.query("SELECT * FROM signal_hooks").get() as Record<string, unknown>;
    expect(row.token_hash).toBe(sha256Hex(hook.token));
    expect(JSON.stringify(row)).not.toContain(hook.token);
    const { url: _u, token: _t, ...shown } = hook;
    expect(await json(await ctx.request("GET", "/api/v1/signal-hooks", { token: jwt }))).toEqual([shown]);
    expect(await json(await ctx.request("GET", `/api/v1/signal-hooks/${hook.id}`, { token: jwt }))).toEqual(shown);
    // A second hook gets another token.
    expect((await createHook({ name: "other" })).token).not.toBe(hook.token);
  });

  test("url is absolute with PUBLIC_BASE_URL; a signals-scope key may manage hooks; names are unique", async () => {
    await setup({ PUBLIC_BASE_URL: "https://trading.example.com/" });
    const key = (await createApiKey(ctx, jwt, ["signals"])).key;
    const res = await ctx.request("POST", "/api/v1/signal-hooks", {
      apiKey: key,
      body: { name: "bot", source: "my-bot" },
    });
    expect(res.status).toBe(201);
    const hook = await json(res);
    expect(hook.url).toBe(`https://trading.example.com/api/v1/hooks/${hook.token}`);
    expect(hook.source).toBe("my-bot");
    const again = await ctx.request("POST", "/api/v1/signal-hooks", { apiKey: key, body: { name: "bot" } });
    expect(again.status).toBe(409);
    expect((await json(again)).error).toBe("Signal hook name already exists");
  });

  test("validation: addresses, CIDRs, tradingview; mints; unknown fields", async () => {
    await setup();
    const bad = async (body: unknown, error: string) => {
      const res = await ctx.request("POST", "/api/v1/signal-hooks", { token: jwt, body });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe(error);
    };
    await bad({}, "Name is required");
    await bad(
      { name: "x", allowedIps: ["10.0.0.0/33"] },
      'allowedIps: "10.0.0.0/33" is not an address, a CIDR range or "tradingview"',
    );
    await bad({ name: "x", tokens: { BONK: "BONK" } }, 'tokens: "BONK" is not a base58 Solana mint address');
    await bad({ name: "x", key: "k" }, 'Unrecognized key: "key"');
  });

  test("PATCH renames (a default source follows the name), changes the map; DELETE revokes the URL", async () => {
    await setup();
    const hook = await createHook();
    const res = await ctx.request("PATCH", `/api/v1/signal-hooks/${hook.id}`, {
      token: jwt,
      body: { name: "tv2", tokens: { wifusdt: WIF } },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ name: "tv2", source: "hook:tv2", tokens: { WIFUSDT: WIF } });
    const delivered = await tradingView(hook.url, alert({ symbol: "WIFUSDT" }));
    expect(delivered.status).toBe(201);
    expect(await json(delivered)).toMatchObject({ tokenAddress: WIF, source: "hook:tv2" });

    expect((await ctx.request("DELETE", `/api/v1/signal-hooks/${hook.id}`, { token: jwt })).status).toBe(200);
    const after = await tradingView(hook.url, alert({ signalType: "sell" }));
    expect(after.status).toBe(404);
    expect(await json(after)).toEqual({ success: false, error: "Signal hook not found", code: "NOT_FOUND" });
  });
});

describe("POST /api/v1/hooks/{token}: what TradingView sends", () => {
  test("text/plain, no header, string numbers, a symbol from the hook's map: 201 with the signal, source hook:<name>", async () => {
    await setup();
    const hook = await createHook();
    const res = await tradingView(hook.url, alert({ activationReason: "RSI < 30" }));
    expect(res.status).toBe(201);
    const signal = await json(res);
    expect(signal).toEqual({
      id: expect.any(Number),
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      tokenAddress: BONK,
      symbol: "BONKUSDT",
      signalType: "buy",
      activationReason: "RSI < 30",
      signalStrength: 4,
      source: "hook:tv",
    });
    // The user's own signal, as any other.
    const listed = await json(await ctx.request("GET", "/api/v1/trading-signals", { token: jwt }));
    expect(listed.map((s: { id: number }) => s.id)).toEqual([signal.id]);
    // The same as application/json (what TradingView sends when the message parses as JSON).
    const asJson = await tradingView(hook.url, alert({ signalType: "sell" }), { contentType: "application/json" });
    expect(asJson.status).toBe(201);
  });

  test("four deliveries of one alert (TradingView's resends): one signal, each answered with it", async () => {
    await setup();
    const hook = await createHook();
    const message = alert();
    const first = await tradingView(hook.url, message);
    expect(first.status).toBe(201);
    const signal = await json(first);
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(2_000);
      const again = await tradingView(hook.url, message);
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual(signal);
    }
    expect(signalCount()).toBe(1);
    // Four at once (resends racing the first): still one signal.
    const burst = alert({ signalType: "sell" });
    const answers = await Promise.all([0, 1, 2, 3].map(() => tradingView(hook.url, burst)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(await Promise.all(answers.map(async (r) => (await json(r)).id))).size).toBe(1);
    expect(signalCount()).toBe(2);
    // Ten minutes later the same body is a new signal.
    ctx.clock.advance(10 * 60_000 + 1);
    expect((await tradingView(hook.url, alert({ timestamp: undefined }))).status).toBe(201);
  });

  test("the same alertId with another body within 10 minutes answers the first signal", async () => {
    await setup();
    const hook = await createHook();
    const first = await json(await tradingView(hook.url, alert({ alertId: "a-1", activationReason: "one" })));
    ctx.clock.advance(1_000);
    const second = await tradingView(hook.url, alert({ alertId: "a-1", activationReason: "two" }));
    expect(second.status).toBe(200);
    expect((await json(second)).id).toBe(first.id);
    expect(signalCount()).toBe(1);
  });

  test("a stale {{timenow}} is refused naming it; epoch seconds and milliseconds are read; a resend of a stored alert still answers its signal", async () => {
    await setup();
    const hook = await createHook();
    const stale = new Date(ctx.clock.now() - 61_000).toISOString();
    const res = await tradingView(hook.url, alert({ timestamp: stale }));
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      success: false,
      code: "VALIDATION_ERROR",
      error: "timestamp is 61 seconds old, more than SIGNAL_HOOK_MAX_LAG_SECONDS (60): the alert is stale",
    });
    expect(signalCount()).toBe(0);
    const future = await tradingView(hook.url, alert({ timestamp: new Date(ctx.clock.now() + 120_000).toISOString() }));
    expect((await json(future)).error).toBe("timestamp is 120 seconds in the future (at most 60 allowed)");
    const seconds = Math.floor(ctx.clock.now() / 1000) - 5;
    expect((await tradingView(hook.url, alert({ timestamp: String(seconds) }))).status).toBe(201);
    const ms = await tradingView(hook.url, alert({ timestamp: ctx.clock.now() - 5_000, signalType: "sell" }));
    expect(ms.status).toBe(201);
    const bad = await tradingView(hook.url, alert({ timestamp: "yesterday" }));
    expect((await json(bad)).error).toBe(
      "timestamp must be ISO 8601 (as {{timenow}} gives) or epoch seconds or milliseconds",
    );
    // TradingView resends within seconds; the clock moved past the lag meanwhile: still the first signal.
    const message = alert({ signalType: "long" });
    const firstSignal = await json(await tradingView(hook.url, message));
    ctx.clock.advance(90_000);
    const resent = await tradingView(hook.url, message);
    expect(resent.status).toBe(200);
    expect((await json(resent)).id).toBe(firstSignal.id);
  });

  test("SIGNAL_HOOK_MAX_LAG_SECONDS sets the lag", async () => {
    await setup({ SIGNAL_HOOK_MAX_LAG_SECONDS: "300" });
    const hook = await createHook();
    const res = await tradingView(hook.url, alert({ timestamp: new Date(ctx.clock.now() - 200_000).toISOString() }));
    expect(res.status).toBe(201);
  });

  test("bodies that are not the signal: 400 in the spec's shape, the template when not JSON", async () => {
    await setup();
    const hook = await createHook();
    const notJson = await tradingView(hook.url, "BONKUSDT crossing 0.00002");
    expect(notJson.status).toBe(400);
    const body = await json(notJson);
    expect(body.error).toBe("Body must be a JSON object of the signal's fields, as in details.example");
    expect(body.details.example).toMatchObject({ signalType: "buy", signalStrength: "4" });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ signalStrength: "6" }, "Signal strength must be between 1 and 5"],
      [{ signalStrength: "four" }, "Signal strength must be between 1 and 5"],
      [{ symbol: "PEPEUSDT" }, "Symbol PEPEUSDT is not in this hook's tokens: add it to the hook or send tokenAddress"],
      [{ source: "other" }, "source is set by the hook (hook:tv): remove it from the message"],
      [{ price: "{{close}}" }, "Unknown field: price"],
    ];
    for (const [extra, error] of cases) {
      const res = await tradingView(hook.url, alert(extra));
      expect(res.status, error).toBe(400);
      expect((await json(res)).error).toBe(error);
    }
    // A symbol in any case; a tokenAddress wins over the map.
    expect((await json(await tradingView(hook.url, alert({ symbol: "bonkusdt" })))).tokenAddress).toBe(BONK);
    const direct = await tradingView(hook.url, alert({ symbol: "WHATEVER", tokenAddress: WIF }));
    expect((await json(direct)).tokenAddress).toBe(WIF);
    expect(signalCount()).toBe(2);
  });

  test("last deliveries: time, answer, signal (newest first)", async () => {
    await setup();
    const hook = await createHook();
    const message = alert();
    const signal = await json(await tradingView(hook.url, message));
    ctx.clock.advance(1_000);
    await tradingView(hook.url, message);
    ctx.clock.advance(1_000);
    await tradingView(hook.url, alert({ signalStrength: "9" }));
    const res = await ctx.request("GET", `/api/v1/signal-hooks/${hook.id}/deliveries`, { token: jwt });
    expect(res.status).toBe(200);
    const brief = { id: signal.id, tokenAddress: BONK, symbol: "BONKUSDT", signalType: "buy", signalStrength: 4 };
    expect(await json(res)).toEqual([
      {
        receivedAt: "2026-01-01T00:00:02.000Z",
        status: 400,
        error: "Signal strength must be between 1 and 5",
        duplicate: false,
        signal: null,
      },
      { receivedAt: "2026-01-01T00:00:01.000Z", status: 200, error: null, duplicate: true, signal: brief },
      { receivedAt: "2026-01-01T00:00:00.000Z", status: 201, error: null, duplicate: false, signal: brief },
    ]);
  });
});

describe("the answer never waits for a trade", () => {
  test("201 leaves while the agent's quote is still unanswered at the swap aggregator", async () => {
    // An aggregator that holds every request until the test lets go: the trade cannot finish.
    const held: Array<() => void> = [];
    const seen: string[] = [];
    const aggregator = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        seen.push(new URL(req.url).pathname);
        return new Promise<Response>((resolve) => held.push(() => resolve(new Response("held", { status: 503 }))));
      },
    });
    try {
      // The SOL price too: the buy's gate values exposure in SOL before it asks for a quote.
      const held = `http://127.0.0.1:${aggregator.port}`;
      await setup({ SWAP_AGGREGATOR_URL: held, SOL_PRICE_FEED_URL: held });
      const agent = await createAgent(ctx, jwt);
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, {
        token: jwt,
        body: { automatedTradingSimulation: true },
      });
      const hook = await createHook();
      const res = await tradingView(hook.url, alert());
      expect(res.status).toBe(201);
      const { id } = await json(res);
      // After the answer, the agent is still at the aggregator: the signal is not decided yet.
      await until(() => seen.length > 0, "the agent's request to the swap aggregator");
      const processing = await json(await ctx.request("GET", `/api/v1/trading-signals/${id}`, { token: jwt }));
      expect(processing.processing.status).not.toBe("done");
    } finally {
      for (const release of held.splice(0)) release();
      await aggregator.stop(true);
    }
  });
});

describe("who may deliver", () => {
  test("a wrong token: 404, counted per address; past SIGNAL_HOOK_MISSES_PER_MINUTE the address gets 429", async () => {
    await setup({ TRUST_PROXY: "true", SIGNAL_HOOK_MISSES_PER_MINUTE: "3" });
    const hook = await createHook();
    const guess = (from: string) => tradingView(`/api/v1/hooks/whk_${"A".repeat(43)}`, alert(), { from });
    for (let i = 0; i < 3; i++) expect((await guess("198.51.100.7")).status).toBe(404);
    const limited = await guess("198.51.100.7");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    // Even the right token, from that address, until the minute is over; other addresses are not held.
    expect((await tradingView(hook.url, alert(), { from: "198.51.100.7" })).status).toBe(429);
    expect((await tradingView(hook.url, alert(), { from: "198.51.100.8" })).status).toBe(201);
    ctx.clock.advance(60_001);
    expect((await guess("198.51.100.7")).status).toBe(404);
  });

  test("each hook has its own rate limit (SIGNAL_HOOK_RATE_LIMIT_PER_MINUTE)", async () => {
    await setup({ SIGNAL_HOOK_RATE_LIMIT_PER_MINUTE: "2" });
    const one = await createHook();
    const two = await createHook({ name: "two" });
    expect((await tradingView(one.url, alert())).status).toBe(201);
    expect((await tradingView(one.url, alert({ signalType: "sell" }))).status).toBe(201);
    const limited = await tradingView(one.url, alert({ signalType: "long" }));
    expect(limited.status).toBe(429);
    expect((await json(limited)).error).toBe("Too many requests. Please try again later.");
    expect((await tradingView(two.url, alert())).status).toBe(201);
  });

  test("allowedIps: tradingview stands for TradingView's addresses, CIDRs match, others are 403", async () => {
    await setup({ TRUST_PROXY: "true" });
    const hook = await createHook({ allowedIps: ["tradingview", "203.0.113.0/28"] });
    for (const [i, from] of [...TRADINGVIEW_ADDRESSES, "203.0.113.14"].entries())
      expect((await tradingView(hook.url, alert({ alertId: `a${i}` }), { from })).status).toBe(201);
    const refused = await tradingView(hook.url, alert({ alertId: "x" }), { from: "203.0.113.16" });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toBe("Address 203.0.113.16 is not in this hook's allowedIps");
  });

  test("without a trusted proxy X-Forwarded-For is not believed: a forged TradingView address is refused", async () => {
    await setup();
    const hook = await createHook({ allowedIps: ["tradingview"] });
    const forged = await tradingView(hook.url, alert(), { from: TRADINGVIEW_ADDRESSES[0] });
    expect(forged.status).toBe(403);
    expect(signalCount()).toBe(0);
  });
});

describe("the token stays secret", () => {
  test("no log line, error body or metric label carries it; deliveries are counted per hook id", async () => {
    await setup(); // LOG_LEVEL debug: the request log is on
    const hook = await createHook();
    const answers: string[] = [];
    const keep = async (res: Response) => {
      answers.push(await res.text());
      return res;
    };
    await keep(await tradingView(hook.url, alert()));
    await keep(await tradingView(hook.url, alert()));
    await keep(await tradingView(hook.url, "not json"));
    await keep(await tradingView(hook.url, alert({ signalStrength: "0" })));
    const wrongMethod = await keep(await ctx.request("GET", hook.url));
    expect(wrongMethod.status).toBe(405);
    await keep(await ctx.request("POST", `${hook.url}/extra`, { rawBody: alert() }));
    const metrics = await (await ctx.request("GET", "/metrics")).text();
    expect(metrics).toContain(`signal_hook_deliveries_total{hook_id="${hook.id}",status="201"} 1`);
    expect(metrics).toContain(`signal_hook_deliveries_total{hook_id="${hook.id}",status="200"} 1`);
    expect(metrics).toContain(`signal_hook_deliveries_total{hook_id="${hook.id}",status="400"} 2`);
    const secret = hook.token.slice(4); // without its whk_ prefix
    expect(metrics).not.toContain(secret);
    for (const a of answers) expect(a).not.toContain(secret);
    const requestLines = ctx.logs.filter((l) => l.includes('"msg":"request"') && l.includes("/api/v1/hooks/"));
    expect(requestLines.length).toBeGreaterThanOrEqual(6);
    expect(requestLines[0]).toContain('"path":"/api/v1/hooks/…"');
    for (const line of ctx.logs) expect(line).not.toContain(secret);
  });
});
